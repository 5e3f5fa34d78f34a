/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

/**
 * EsdFsJobFunc:
 * @data: the job's data
 * @cancellable: cancelled when the connection closes
 * @error: return location for a #GError
 *
 * Runs in a worker thread and produces the result JSON.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 */
typedef GString *(*EsdFsJobFunc)(gpointer data, GCancellable *cancellable, GError **error);

/**
 * EsdFsJobDoneFunc:
 * @data: the job's data
 * @error: (nullable): how the job failed
 *
 * Runs on the main thread after the job, before the call is answered.
 */
typedef void (*EsdFsJobDoneFunc)(gpointer data, const GError *error);

void
esd_fs_job_run(ErpcCall *call, EsdFsJobFunc func, gpointer data, GDestroyNotify data_free);
void
esd_fs_job_run_full(ErpcCall *call,
		    EsdFsJobFunc func,
		    EsdFsJobDoneFunc done,
		    gpointer data,
		    GDestroyNotify data_free);

G_END_DECLS
