/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-fs-handle.h"
#include "esd-fs-sandbox-answer.h"

G_BEGIN_DECLS

/* the defaults of --fs-sandbox-helpers and --fs-sandbox-helper-idle */
#define ESD_FS_WARM_MAX_DEFAULT	 4
#define ESD_FS_WARM_IDLE_DEFAULT 30

typedef struct _EsdFsWarm EsdFsWarm;
typedef struct _EsdFsWarmPool EsdFsWarmPool;

void
esd_fs_warm_set_limits(guint max_helpers, guint idle_seconds);

EsdFsWarmPool *
esd_fs_warm_pool_new(void);
void
esd_fs_warm_pool_free(EsdFsWarmPool *pool);
EsdFsWarm *
esd_fs_warm_pool_acquire(EsdFsWarmPool *pool, const gchar *key);
void
esd_fs_warm_release(EsdFsWarm *warm, gboolean reusable);

gboolean
esd_fs_warm_exchange(EsdFsWarm *warm,
		     ErpcSandbox *service,
		     ErpcSandboxPolicy *policy,
		     GPtrArray *request,
		     EsdFsAnswer *answer,
		     GCancellable *cancellable,
		     GError **error);
EsdFsHandle *
esd_fs_warm_receive_handle(EsdFsWarm *warm, GError **error);
void
esd_fs_warm_finish(EsdFsWarm *warm);

G_END_DECLS
