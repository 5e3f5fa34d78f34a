/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <gio/gio.h>
#include <string.h>
#include <sys/socket.h>

#include "esd-fs-connection-state.h"
#include "esd-fs-handoff.h"
#include "esd-fs-sandbox-answer.h"
#include "esd-fs-sandbox-exec.h"
#include "esd-fs-sandbox-run.h"
#include "esd-fs-sandbox-warm.h"

/*
 * An fs request with a restricted file system (PROTOCOL.md §6.4: "FS
 * operations run inside a sandboxed helper process") is evaluated by
 * esd-fs-helper inside the sandbox a process with the same policy would get
 * (esd-fs-sandbox-exec.c, through the host's sandbox service). The request goes to the helper as
 * received, less its `sandbox` member, after the daemon checked its params as for a direct run; the
 * helper runs it with the same method table and code as the daemon and its answer is passed on
 * unchanged: a result as written, an error with its code, message and data. So a sandboxed request
 * gives exactly the answer a direct one would give on the file system the sandbox shows.
 *
 * fs/open is the exception that leaves something behind: the helper opens
 * the file (or creates the staging file of a replacement) inside the
 * sandbox and hands the descriptors back (esd-fs-handoff.c); the daemon
 * keeps them as an ordinary handle.
 *
 * The helper is a warm one of the connection (esd-fs-sandbox-warm.c)
 * that serves many requests, or, when all of those are busy, one started
 * for this request only. Everything runs in a worker thread; the call is
 * answered on the main thread. Cancelling the call (its connection
 * closed) kills the helper.
 */

typedef struct {
	ErpcCall *call;
	ErpcSandbox *service;
	ErpcSandboxPolicy *policy;
	GPtrArray *request; /* of GBytes */
	EsdFsAnswer *answer;
	EsdFsSandboxAdoptFunc adopt;
	gint handoff[2]; /* the daemon's end, the helper's end */
	EsdFsHandle *handle;
	EsdFsWarm *warm; /* or NULL: a helper for this request */
	gboolean warm_ok;
	gint64 started;
} EsdFsSandboxJob;

static void
esd_fs_sandbox_job_free(gpointer data)
{
	EsdFsSandboxJob *job = data;

	if (job->warm != NULL)
		esd_fs_warm_release(job->warm, FALSE);
	g_object_unref(job->call);
	g_object_unref(job->service);
	erpc_sandbox_policy_unref(job->policy);
	g_ptr_array_unref(job->request);
	esd_fs_answer_free(job->answer);
	esd_fs_close_fdp(&job->handoff[0]);
	esd_fs_close_fdp(&job->handoff[1]);
	g_clear_object(&job->handle);
	g_free(job);
}

/* whether @text can go into a JSON string as it is */
static gboolean
esd_fs_sandbox_text_is_plain(const gchar *text, gsize len)
{
	for (gsize i = 0; i < len; i++) {
		guchar c = (guchar)text[i];
		if (c < 0x20 || c == '"' || c == '\\')
			return FALSE;
	}
	return TRUE;
}

/*
 * `{"id":1,"method":M,"params":P}` with P the params less `sandbox`; a large
 * member (@blob) is passed on from where the daemon received it
 */
static GPtrArray *
esd_fs_sandbox_request_new(ErpcCall *call, JsonObject *params, const EsdFsSandboxBlob *blob)
{
	GPtrArray *request = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
	GString *out = g_string_new(NULL);
	ErpcJsonWriter writer;
	JsonObjectIter iter;
	const gchar *name;
	JsonNode *node;

	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member_int(&writer, "id", ESD_FS_SANDBOX_REQUEST_ID);
	erpc_json_writer_member_string(&writer, "method", erpc_call_get_method(call));
	erpc_json_writer_member(&writer, "params");
	erpc_json_writer_begin_object(&writer);
	json_object_iter_init(&iter, params);
	while (json_object_iter_next(&iter, &name, &node)) {
		if (g_strcmp0(name, "sandbox") == 0 ||
		    (blob != NULL && g_strcmp0(name, blob->member) == 0))
			continue;
		erpc_json_writer_member(&writer, name);
		erpc_json_writer_node(&writer, node);
	}
	if (blob != NULL) {
		erpc_json_writer_member(&writer, blob->member);
		if (esd_fs_sandbox_text_is_plain(blob->text, blob->len)) {
			/*
			 * the text goes out between the head and the tail as it
			 * is: the call, and so the frame holding it, outlives the job
			 */
			erpc_json_writer_begin_string(&writer);
			g_ptr_array_add(request, g_bytes_new(out->str, out->len));
			g_ptr_array_add(request, g_bytes_new_static(blob->text, blob->len));
			g_string_truncate(out, 0);
			erpc_json_writer_end_string(&writer);
		} else {
			erpc_json_writer_string(&writer, blob->text, (gssize)blob->len);
		}
	}
	erpc_json_writer_end_object(&writer);
	erpc_json_writer_end_object(&writer);
	g_string_append_c(out, '\n');
	g_ptr_array_add(request, g_string_free_to_bytes(out));
	return request;
}

static void
esd_fs_sandbox_thread(GTask *task,
		      gpointer source_object,
		      gpointer task_data,
		      GCancellable *cancellable)
{
	EsdFsSandboxJob *job = task_data;
	GError *error = NULL;

	if (job->warm != NULL) {
		if (!esd_fs_warm_exchange(job->warm,
					  job->service,
					  job->policy,
					  job->request,
					  job->answer,
					  cancellable,
					  &error)) {
			g_task_return_error(task, error);
			return;
		}
		if (!esd_fs_answer_finish(job->answer, &error)) {
			g_message("%s: %s", erpc_call_get_method(job->call), error->message);
			g_task_return_error(task, error);
			return;
		}
		if (job->adopt != NULL && esd_fs_answer_get_error(job->answer) == NULL) {
			job->handle = esd_fs_warm_receive_handle(job->warm, &error);
			if (job->handle == NULL) {
				g_message("%s: %s",
					  erpc_call_get_method(job->call),
					  error->message);
				g_task_return_error(task, error);
				return;
			}
		}
		esd_fs_warm_finish(job->warm);
		job->warm_ok = TRUE;
		g_task_return_boolean(task, TRUE);
		return;
	}
	if (!esd_fs_sandbox_exec(job->service,
				 job->policy,
				 job->request,
				 job->handoff[1],
				 job->answer,
				 cancellable,
				 &error)) {
		g_task_return_error(task, error);
		return;
	}
	esd_fs_close_fdp(&job->handoff[1]);
	if (!esd_fs_answer_finish(job->answer, &error)) {
		g_message("%s: %s", erpc_call_get_method(job->call), error->message);
		g_task_return_error(task, error);
		return;
	}
	if (job->adopt != NULL && esd_fs_answer_get_error(job->answer) == NULL) {
		job->handle = esd_fs_handoff_receive(job->handoff[0], &error);
		if (job->handle == NULL) {
			g_message("%s: %s", erpc_call_get_method(job->call), error->message);
			g_task_return_error(task, error);
			return;
		}
	}
	g_task_return_boolean(task, TRUE);
}

/* a failure to run the helper at all, answered with the `kind` it needs */
static void
esd_fs_sandbox_return_failure(ErpcCall *call, const GError *error)
{
	if (g_error_matches(error, ERPC_SANDBOX_ERROR, ERPC_SANDBOX_ERROR_UNAVAILABLE))
		g_info("%s: sandboxed request refused: %s",
		       erpc_call_get_method(call),
		       error->message);
	else if (g_error_matches(error, ERPC_SANDBOX_ERROR, ERPC_SANDBOX_ERROR_PREPARATION))
		g_message("%s: %s", erpc_call_get_method(call), error->message);
	erpc_call_return_sandbox_error(call, error);
}

static void
esd_fs_sandbox_done_cb(GObject *source_object, GAsyncResult *res, gpointer user_data)
{
	GTask *task = G_TASK(res);
	EsdFsSandboxJob *job = g_task_get_task_data(task);
	ErpcCall *call = job->call;
	g_autoptr(GError) error = NULL;
	const GError *answered;

	g_debug("sandboxed %s: %.1f ms%s",
		erpc_call_get_method(call),
		(g_get_monotonic_time() - job->started) / 1000.0,
		job->warm != NULL ? " (warm)" : "");
	if (job->warm != NULL) {
		esd_fs_warm_release(job->warm, job->warm_ok);
		job->warm = NULL;
	}
	if (!g_task_propagate_boolean(task, &error)) {
		esd_fs_sandbox_return_failure(call, error);
		return;
	}
	answered = esd_fs_answer_get_error(job->answer);
	if (answered != NULL) {
		erpc_call_return_error_full(call,
					    answered,
					    esd_fs_answer_steal_error_data(job->answer));
		return;
	}
	if (job->adopt != NULL && !job->adopt(call, job->handle, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	erpc_call_result_end(call, esd_fs_answer_steal_result(job->answer));
}

/* the connection's idle helper for this `sandbox`, or a new slot; NULL when all are busy */
static EsdFsWarm *
esd_fs_sandbox_warm_acquire(ErpcCall *call, JsonObject *params)
{
	EsdFsConnectionState *state = esd_fs_connection_state_get(erpc_call_get_connection(call));
	g_autofree gchar *key = json_to_string(json_object_get_member(params, "sandbox"), FALSE);

	return esd_fs_warm_pool_acquire(esd_fs_connection_state_get_warm(state), key);
}

/**
 * esd_fs_sandbox_run:
 * @call: the request, answered by this function or later
 * @service: the host's sandbox
 * @policy: the policy of its `sandbox`, with a restricted file system
 * @params: its params, already checked as for a direct run
 * @blob: (nullable): a large member to pass on from the received frame
 * @adopt: (nullable): for fs/open: takes the handle the helper opened, on
 *   the main thread, before the call is answered
 *
 * Runs the request in the sandboxed helper and answers it with the
 * helper's answer, or with `sandboxUnavailable` (-32602) or
 * `sandboxPreparation` (-32603) when the sandbox cannot be had; never
 * without the sandbox.
 */
void
esd_fs_sandbox_run(ErpcCall *call,
		   ErpcSandbox *service,
		   ErpcSandboxPolicy *policy,
		   JsonObject *params,
		   const EsdFsSandboxBlob *blob,
		   EsdFsSandboxAdoptFunc adopt)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GTask) task = NULL;
	EsdFsSandboxJob *job;

	job = g_new0(EsdFsSandboxJob, 1);
	job->call = g_object_ref(call);
	job->service = g_object_ref(service);
	job->policy = erpc_sandbox_policy_ref(policy);
	job->request = esd_fs_sandbox_request_new(call, params, blob);
	job->answer = esd_fs_answer_new(call);
	job->adopt = adopt;
	job->handoff[0] = job->handoff[1] = -1;
	job->started = g_get_monotonic_time();
	job->warm = esd_fs_sandbox_warm_acquire(call, params);
	if (adopt != NULL && job->warm == NULL &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, job->handoff) != 0) {
		esd_fs_set_errno(&error, errno);
		esd_fs_sandbox_job_free(job);
		erpc_call_return_error(call, error);
		return;
	}
	task = g_task_new(NULL, erpc_call_get_cancellable(call), esd_fs_sandbox_done_cb, NULL);
	g_task_set_source_tag(task, esd_fs_sandbox_run);
	g_task_set_task_data(task, job, esd_fs_sandbox_job_free);
	g_task_run_in_thread(task, esd_fs_sandbox_thread);
}
