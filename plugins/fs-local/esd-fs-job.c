/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <gio/gio.h>

#include "esd-fs-job.h"

/*
 * Expensive requests run in a GTask worker that builds the whole answer;
 * the call is finished from the completion callback, on the main thread.
 */

typedef struct {
	EsdFsJobFunc func;
	EsdFsJobDoneFunc done;
	gpointer data;
	GDestroyNotify data_free;
} EsdFsJob;

static void
esd_fs_job_free(gpointer data)
{
	EsdFsJob *job = data;
	if (job->data_free != NULL)
		job->data_free(job->data);
	g_free(job);
}

static void
esd_fs_job_string_free(gpointer data)
{
	g_string_free(data, TRUE);
}

static void
esd_fs_job_thread(GTask *task,
		  gpointer source_object,
		  gpointer task_data,
		  GCancellable *cancellable)
{
	EsdFsJob *job = task_data;
	GError *error = NULL;
	GString *result = job->func(job->data, cancellable, &error);

	if (result == NULL) {
		g_task_return_error(task, error);
		return;
	}
	g_task_return_pointer(task, result, esd_fs_job_string_free);
}

static void
esd_fs_job_done_cb(GObject *source_object, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(ErpcCall) call = user_data;
	g_autoptr(GError) error = NULL;
	EsdFsJob *job = g_task_get_task_data(G_TASK(res));
	GString *result = g_task_propagate_pointer(G_TASK(res), &error);

	if (job->done != NULL)
		job->done(job->data, error);

	/* on a closed connection the answer is dropped by the call itself */
	if (result == NULL) {
		erpc_call_return_error(call, error);
		return;
	}
	erpc_call_return_gstring(call, result);
}

/**
 * esd_fs_job_run_full:
 * @call: the request, answered when the job is done
 * @func: what runs in the worker thread
 * @done: (nullable): what runs on the main thread afterwards
 * @data: (transfer full): their data
 * @data_free: (nullable): frees @data after the job
 *
 * Runs @func in a worker thread and answers @call with its result. The
 * call (and so its params) lives until then: @data may borrow from them.
 */
void
esd_fs_job_run_full(ErpcCall *call,
		    EsdFsJobFunc func,
		    EsdFsJobDoneFunc done,
		    gpointer data,
		    GDestroyNotify data_free)
{
	g_autoptr(GTask) task = NULL;
	EsdFsJob *job = g_new0(EsdFsJob, 1);

	job->func = func;
	job->done = done;
	job->data = data;
	job->data_free = data_free;
	task = g_task_new(NULL,
			  erpc_call_get_cancellable(call),
			  esd_fs_job_done_cb,
			  g_object_ref(call));
	g_task_set_source_tag(task, esd_fs_job_run);
	g_task_set_task_data(task, job, esd_fs_job_free);
	g_task_run_in_thread(task, esd_fs_job_thread);
}

/**
 * esd_fs_job_run:
 * @call: the request, answered when the job is done
 * @func: what runs in the worker thread
 * @data: (transfer full): its data
 * @data_free: (nullable): frees @data after the job
 *
 * Runs @func in a worker thread and answers @call with its result.
 */
void
esd_fs_job_run(ErpcCall *call, EsdFsJobFunc func, gpointer data, GDestroyNotify data_free)
{
	esd_fs_job_run_full(call, func, NULL, data, data_free);
}
