/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "esd-fs-connection-state.h"
#include "esd-fs-handle-methods.h"
#include "esd-fs-job.h"
#include "esd-fs-methods.h"
#include "esd-fs-ops.h"
#include "esd-fs-path.h"
#include "esd-fs-sandbox-direct.h"
#include "esd-fs-tree.h"

/*
 * The fs methods (PROTOCOL.md §9-§11): params are checked here, the work
 * is done by esd-fs-ops, esd-fs-tree and the handles. Cheap calls are
 * answered at once on the main thread; anything that may read, write or
 * list a lot runs in a worker thread (esd-fs-job). Results are built as
 * JSON text directly.
 */

void
esd_fs_methods_finish(ErpcCall *call, GString *result, const GError *error)
{
	if (result == NULL) {
		erpc_call_return_error(call, error);
		return;
	}
	erpc_call_return_raw(call, result->str);
	g_string_free(result, TRUE);
}

/* answers `{}` or the error */
void
esd_fs_methods_finish_empty(ErpcCall *call, gboolean ok, const GError *error)
{
	if (!ok) {
		erpc_call_return_error(call, error);
		return;
	}
	erpc_call_return_raw(call, "{}");
}

/*
 * Reads the `sandbox` member; FALSE after answering. It is read by the
 * host's sandbox service, as process/start reads it: the same errors, the
 * same rules. Profiles that need no outer sandbox (`disabled`, `external`,
 * `managed` with an unrestricted file system) give no policy and run
 * directly.
 */
static gboolean
esd_fs_methods_read_sandbox(gpointer plugin,
			    ErpcCall *call,
			    JsonObject *params,
			    ErpcSandbox **service_out,
			    ErpcSandboxPolicy **policy_out)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcSandboxPolicy) policy = NULL;
	JsonNode *node = json_object_get_member(params, "sandbox");
	ErpcContext *context = NULL;
	ErpcSandbox *service = NULL;
	JsonObject *sandbox;

	*policy_out = NULL;
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	context = erpc_plugin_get_context(ERPC_PLUGIN(plugin));
	if (context != NULL)
		service = erpc_context_get_sandbox(context);
	sandbox = erpc_json_params_object(node, "FileSystemSandboxContext", &error);
	if (sandbox == NULL) {
		erpc_call_return_error(call, error);
		return FALSE;
	}
	if (service == NULL) {
		g_set_error_literal(&error,
				    ERPC_SANDBOX_ERROR,
				    ERPC_SANDBOX_ERROR_UNAVAILABLE,
				    "the requested sandbox is unavailable on this executor: "
				    "the host provides no sandbox");
		erpc_call_return_sandbox_error(call, error);
		return FALSE;
	}
	policy = erpc_sandbox_parse_policy(service, sandbox, NULL, &error);
	if (policy == NULL) {
		erpc_call_return_sandbox_error(call, error);
		return FALSE;
	}
	if (!erpc_sandbox_policy_is_file_system_restricted(policy))
		return TRUE;
	*service_out = service;
	*policy_out = g_steal_pointer(&policy);
	return TRUE;
}

/*
 * Checks the `sandbox` member; FALSE after answering. A restricted file
 * system hands the call to the sandboxed helper (esd-fs-sandbox-run.c),
 * which answers it, and never runs unconfined. @blob is a large member to
 * pass on as read from the frame, @adopt takes the handle a sandboxed
 * fs/open hands back.
 */
gboolean
esd_fs_methods_check_sandbox(gpointer plugin,
			     ErpcCall *call,
			     JsonObject *params,
			     const EsdFsSandboxBlob *blob,
			     EsdFsSandboxAdoptFunc adopt)
{
	g_autoptr(ErpcSandboxPolicy) policy = NULL;
	ErpcSandbox *service = NULL;

	if (!esd_fs_methods_read_sandbox(plugin, call, params, &service, &policy))
		return FALSE;
	if (policy == NULL)
		return TRUE;
	esd_fs_sandbox_run(call, service, policy, params, blob, adopt);
	return FALSE;
}

/*
 * esd_fs_methods_check_sandbox() for a request that may run outside the
 * sandbox: when the sandbox service says the sandbox shows @path as the
 * host does with @access (esd-fs-sandbox-direct.c), TRUE with @direct set;
 * the caller then runs the request without following links, and hands it
 * to the helper with esd_fs_direct_fallback() where it meets one.
 */
static gboolean
esd_fs_methods_check_sandbox_direct(gpointer plugin,
				    ErpcCall *call,
				    JsonObject *params,
				    const EsdFsSandboxBlob *blob,
				    const gchar *path,
				    ErpcSandboxAccess access,
				    ErpcSandboxDirectFlags flags,
				    EsdFsDirect *direct)
{
	g_autoptr(ErpcSandboxPolicy) policy = NULL;
	ErpcSandbox *service = NULL;

	direct->service = NULL;
	direct->policy = NULL;
	if (!esd_fs_methods_read_sandbox(plugin, call, params, &service, &policy))
		return FALSE;
	if (policy == NULL)
		return TRUE;
	if (esd_fs_direct_check(service, policy, path, access, flags)) {
		direct->service = service;
		direct->policy = g_steal_pointer(&policy);
		return TRUE;
	}
	esd_fs_sandbox_run(call, service, policy, params, blob, NULL);
	return FALSE;
}

/* `path` and `followSymlinks`, the params most methods share */
gboolean
esd_fs_methods_parse_path(ErpcCall *call,
			  JsonObject *params,
			  gchar **path,
			  gboolean *follow,
			  GError **error)
{
	if (!erpc_json_require_path(params, "path", path, error))
		return FALSE;
	if (follow != NULL && !erpc_json_get_boolean(params, "followSymlinks", TRUE, follow, error))
		return FALSE;
	return TRUE;
}

typedef struct {
	gchar *path;
	gint fd;
	struct stat st;
	gboolean follow;
	const gchar *text; /* borrowed from the params, which the call keeps alive */
	gsize text_len;
} EsdFsFileJob;

static void
esd_fs_file_job_free(gpointer data)
{
	EsdFsFileJob *job = data;
	esd_fs_close_fdp(&job->fd);
	g_free(job->path);
	g_free(job);
}

static GString *
esd_fs_methods_read_file_thread(gpointer data, GCancellable *cancellable, GError **error)
{
	EsdFsFileJob *job = data;
	return esd_fs_ops_read_file_result(job->fd, &job->st, error);
}

static void
esd_fs_methods_read_file(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *path = NULL;
	g_auto(EsdFsDirect) direct = {NULL, NULL};
	gboolean follow = TRUE;
	EsdFsFileJob *job;
	struct stat st;
	gint fd;

	if (!esd_fs_methods_parse_path(call, params, &path, &follow, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	if (!esd_fs_methods_check_sandbox_direct(user_data,
						 call,
						 params,
						 NULL,
						 path,
						 ERPC_SANDBOX_ACCESS_READ,
						 ERPC_SANDBOX_DIRECT_NONE,
						 &direct))
		return;
	if (direct.policy != NULL) {
		gboolean fallback = FALSE;
		fd = esd_fs_direct_open_regular(path, &st, &fallback, &error);
		if (fallback) {
			esd_fs_direct_fallback(call, &direct, params, NULL);
			return;
		}
	} else {
		fd = esd_fs_ops_open_regular(path, follow, &st, &error);
	}
	if (fd < 0) {
		erpc_call_return_error(call, error);
		return;
	}
	/* an empty size may hide anything (/proc): only known small files are read here */
	if (st.st_size > 0 && st.st_size <= ESD_FS_SYNC_BYTES) {
		GString *result = esd_fs_ops_read_file_result(fd, &st, &error);
		close(fd);
		esd_fs_methods_finish(call, result, error);
		return;
	}
	job = g_new0(EsdFsFileJob, 1);
	job->fd = fd;
	job->st = st;
	esd_fs_job_run(call, esd_fs_methods_read_file_thread, job, esd_fs_file_job_free);
}

static GString *
esd_fs_methods_write_file_thread(gpointer data, GCancellable *cancellable, GError **error)
{
	EsdFsFileJob *job = data;
	if (!esd_fs_ops_write_file(job->path, job->follow, job->text, job->text_len, error))
		return NULL;
	return g_string_new("{}");
}

static void
esd_fs_methods_write_file(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GError) text_error = NULL;
	g_autofree gchar *path = NULL;
	EsdFsSandboxBlob blob = {.member = "dataBase64"};
	g_auto(EsdFsDirect) direct = {NULL, NULL};
	const gchar *text;
	gsize text_len = 0;
	gboolean follow = TRUE;
	EsdFsFileJob *job;

	/* first, as ERPC_METHOD_FLAG_BLOBS asks; a path error still wins */
	text = erpc_call_get_blob(call, params, "dataBase64", &text_len, &text_error);
	if (!esd_fs_methods_parse_path(call, params, &path, &follow, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	if (text == NULL) {
		erpc_call_return_error(call, text_error);
		return;
	}
	blob.text = text;
	blob.len = text_len;
	if (!esd_fs_methods_check_sandbox_direct(user_data,
						 call,
						 params,
						 &blob,
						 path,
						 ERPC_SANDBOX_ACCESS_WRITE,
						 ERPC_SANDBOX_DIRECT_NONE,
						 &direct))
		return;
	if (direct.policy != NULL) {
		esd_fs_direct_write_file(call, &direct, &blob, path);
		return;
	}
	/* the text stays in the request's frame, which the call keeps alive */
	job = g_new0(EsdFsFileJob, 1);
	job->fd = -1;
	job->path = g_steal_pointer(&path);
	job->follow = follow;
	job->text = text;
	job->text_len = text_len;
	esd_fs_job_run(call, esd_fs_methods_write_file_thread, job, esd_fs_file_job_free);
}

static void
esd_fs_methods_create_directory(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *path = NULL;
	g_auto(EsdFsDirect) direct = {NULL, NULL};
	gboolean follow = TRUE;
	gboolean recursive = TRUE;
	gboolean ok;

	if (!esd_fs_methods_parse_path(call, params, &path, &follow, &error) ||
	    !erpc_json_get_boolean(params, "recursive", TRUE, &recursive, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	if (!esd_fs_methods_check_sandbox_direct(user_data,
						 call,
						 params,
						 NULL,
						 path,
						 ERPC_SANDBOX_ACCESS_WRITE,
						 ERPC_SANDBOX_DIRECT_NONE,
						 &direct))
		return;
	if (direct.policy != NULL) {
		gboolean fallback = FALSE;
		ok = esd_fs_direct_create_directory(path, recursive, &fallback, &error);
		if (fallback) {
			esd_fs_direct_fallback(call, &direct, params, NULL);
			return;
		}
	} else {
		ok = esd_fs_ops_create_directory(path, recursive, follow, &error);
	}
	esd_fs_methods_finish_empty(call, ok, error);
}

static void
esd_fs_methods_get_metadata(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *path = NULL;
	g_auto(EsdFsDirect) direct = {NULL, NULL};
	gboolean follow = TRUE;
	GString *out;

	if (!esd_fs_methods_parse_path(call, params, &path, &follow, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	if (!esd_fs_methods_check_sandbox_direct(user_data,
						 call,
						 params,
						 NULL,
						 path,
						 ERPC_SANDBOX_ACCESS_READ,
						 ERPC_SANDBOX_DIRECT_NONE,
						 &direct))
		return;
	out = g_string_sized_new(160);
	if (direct.policy != NULL) {
		gboolean fallback = FALSE;
		if (!esd_fs_direct_get_metadata(path, out, &fallback, &error)) {
			g_string_free(out, TRUE);
			out = NULL;
		}
		if (fallback) {
			esd_fs_direct_fallback(call, &direct, params, NULL);
			return;
		}
	} else if (!esd_fs_ops_get_metadata(path, follow, out, &error)) {
		g_string_free(out, TRUE);
		out = NULL;
	}
	esd_fs_methods_finish(call, out, error);
}

static void
esd_fs_methods_canonicalize(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *path = NULL;
	GString *out;

	if (!esd_fs_methods_parse_path(call, params, &path, NULL, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	if (!esd_fs_methods_check_sandbox(user_data, call, params, NULL, NULL))
		return;
	out = g_string_sized_new(strlen(path) + 32);
	if (!esd_fs_ops_canonicalize(path, out, &error)) {
		g_string_free(out, TRUE);
		out = NULL;
	}
	esd_fs_methods_finish(call, out, error);
}

static GString *
esd_fs_methods_read_directory_thread(gpointer data, GCancellable *cancellable, GError **error)
{
	return esd_fs_ops_read_directory(data, cancellable, error);
}

static void
esd_fs_methods_read_directory(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *path = NULL;
	g_auto(EsdFsDirect) direct = {NULL, NULL};

	if (!esd_fs_methods_parse_path(call, params, &path, NULL, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	if (!esd_fs_methods_check_sandbox_direct(user_data,
						 call,
						 params,
						 NULL,
						 path,
						 ERPC_SANDBOX_ACCESS_READ,
						 ERPC_SANDBOX_DIRECT_TREE,
						 &direct))
		return;
	if (direct.policy != NULL) {
		esd_fs_direct_read_directory(call, &direct, path);
		return;
	}
	esd_fs_job_run(call, esd_fs_methods_read_directory_thread, g_steal_pointer(&path), g_free);
}

typedef struct {
	gchar *path;
	EsdFsWalkOptions options;
} EsdFsWalkJob;

static void
esd_fs_walk_job_free(gpointer data)
{
	EsdFsWalkJob *job = data;
	g_free(job->path);
	g_free(job);
}

static GString *
esd_fs_methods_walk_thread(gpointer data, GCancellable *cancellable, GError **error)
{
	EsdFsWalkJob *job = data;
	return esd_fs_tree_walk(job->path, &job->options, cancellable, error);
}

static gboolean
esd_fs_methods_parse_walk_options(JsonObject *params, EsdFsWalkOptions *options, GError **error)
{
	JsonNode *node = json_object_get_member(params, "options");
	JsonObject *obj;

	if (node == NULL) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "missing field `options`");
		return FALSE;
	}
	obj = erpc_json_params_object(node, "WalkOptions", error);
	return obj != NULL &&
	       erpc_json_require_uint64(obj, "maxDepth", &options->max_depth, error) &&
	       erpc_json_require_uint64(obj, "maxDirectories", &options->max_directories, error) &&
	       erpc_json_require_uint64(obj, "maxEntries", &options->max_entries, error) &&
	       erpc_json_require_boolean(obj,
					 "followDirectorySymlinks",
					 &options->follow_directory_symlinks,
					 error) &&
	       erpc_json_get_boolean(obj,
				     "pruneHiddenDirectories",
				     FALSE,
				     &options->prune_hidden_directories,
				     error);
}

static gboolean
esd_fs_methods_check_walk_limits(const EsdFsWalkOptions *options, GError **error)
{
	if (options->max_directories == 0 || options->max_entries == 0) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_REQUEST,
				    "filesystem walk limits must be greater than zero");
		return FALSE;
	}
	if (options->max_depth > ESD_FS_WALK_MAX_DEPTH ||
	    options->max_directories > ESD_FS_WALK_MAX_DIRECTORIES ||
	    options->max_entries > ESD_FS_WALK_MAX_ENTRIES) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "filesystem walk limits exceed maximums: depth=%d, directories=%d, "
			    "entries=%d",
			    ESD_FS_WALK_MAX_DEPTH,
			    ESD_FS_WALK_MAX_DIRECTORIES,
			    ESD_FS_WALK_MAX_ENTRIES);
		return FALSE;
	}
	return TRUE;
}

static void
esd_fs_methods_walk(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *path = NULL;
	EsdFsWalkOptions options = {0};
	EsdFsWalkJob *job;

	if (!esd_fs_methods_parse_path(call, params, &path, NULL, &error) ||
	    !esd_fs_methods_parse_walk_options(params, &options, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	if (!esd_fs_methods_check_sandbox(user_data, call, params, NULL, NULL))
		return;
	if (!esd_fs_methods_check_walk_limits(&options, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	job = g_new0(EsdFsWalkJob, 1);
	job->path = g_steal_pointer(&path);
	job->options = options;
	esd_fs_job_run(call, esd_fs_methods_walk_thread, job, esd_fs_walk_job_free);
}

typedef struct {
	gchar *path;
	gboolean force;
} EsdFsRemoveJob;

static void
esd_fs_remove_job_free(gpointer data)
{
	EsdFsRemoveJob *job = data;
	g_free(job->path);
	g_free(job);
}

static GString *
esd_fs_methods_remove_thread(gpointer data, GCancellable *cancellable, GError **error)
{
	EsdFsRemoveJob *job = data;
	if (!esd_fs_tree_remove(job->path, TRUE, job->force, TRUE, cancellable, error))
		return NULL;
	return g_string_new("{}");
}

static void
esd_fs_methods_remove(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *path = NULL;
	gboolean follow = TRUE;
	gboolean recursive = TRUE;
	gboolean force = TRUE;
	g_auto(EsdFsDirect) direct = {NULL, NULL};
	struct stat st;
	gboolean ok;

	if (!esd_fs_methods_parse_path(call, params, &path, &follow, &error) ||
	    !erpc_json_get_boolean(params, "recursive", TRUE, &recursive, &error) ||
	    !erpc_json_get_boolean(params, "force", TRUE, &force, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	if (!esd_fs_methods_check_sandbox_direct(user_data,
						 call,
						 params,
						 NULL,
						 path,
						 ERPC_SANDBOX_ACCESS_WRITE,
						 ERPC_SANDBOX_DIRECT_NONE,
						 &direct))
		return;
	if (direct.policy != NULL) {
		gboolean fallback = FALSE;
		ok = esd_fs_direct_remove(path, recursive, force, follow, &fallback, &error);
		if (fallback) {
			esd_fs_direct_fallback(call, &direct, params, NULL);
			return;
		}
		esd_fs_methods_finish_empty(call, ok, error);
		return;
	}
	/* only a whole directory tree is worth a worker */
	if (follow && recursive && lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		EsdFsRemoveJob *job = g_new0(EsdFsRemoveJob, 1);
		job->path = g_steal_pointer(&path);
		job->force = force;
		esd_fs_job_run(call, esd_fs_methods_remove_thread, job, esd_fs_remove_job_free);
		return;
	}
	ok = esd_fs_tree_remove(path, recursive, force, follow, NULL, &error);
	esd_fs_methods_finish_empty(call, ok, error);
}

typedef struct {
	gchar *source;
	gchar *destination;
	gboolean recursive;
} EsdFsCopyJob;

static void
esd_fs_copy_job_free(gpointer data)
{
	EsdFsCopyJob *job = data;
	g_free(job->source);
	g_free(job->destination);
	g_free(job);
}

static GString *
esd_fs_methods_copy_thread(gpointer data, GCancellable *cancellable, GError **error)
{
	EsdFsCopyJob *job = data;
	if (!esd_fs_tree_copy(job->source, job->destination, job->recursive, cancellable, error))
		return NULL;
	return g_string_new("{}");
}

static void
esd_fs_methods_copy(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *source = NULL;
	g_autofree gchar *destination = NULL;
	gboolean recursive = FALSE;
	EsdFsCopyJob *job;

	if (!erpc_json_require_path(params, "sourcePath", &source, &error) ||
	    !erpc_json_require_path(params, "destinationPath", &destination, &error) ||
	    !erpc_json_require_boolean(params, "recursive", &recursive, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	if (!esd_fs_methods_check_sandbox(user_data, call, params, NULL, NULL))
		return;
	job = g_new0(EsdFsCopyJob, 1);
	job->source = g_steal_pointer(&source);
	job->destination = g_steal_pointer(&destination);
	job->recursive = recursive;
	esd_fs_job_run(call, esd_fs_methods_copy_thread, job, esd_fs_copy_job_free);
}

gboolean
esd_fs_methods_register(ErpcRegistry *registry, EsdFsLocalPlugin *plugin, GError **error)
{
	/* params_type: the reference's struct names, as its type errors say them */
	const ErpcMethodInfo methods[] = {
	    {.name = "fs/readFile",
	     .family = "filesystem",
	     .params_type = "FsReadFileParams",
	     .func = esd_fs_methods_read_file},
	    {.name = "fs/writeFile",
	     .family = "filesystem",
	     .params_type = "FsWriteFileParams",
	     .flags = ERPC_METHOD_FLAG_BLOBS,
	     .func = esd_fs_methods_write_file},
	    {.name = "fs/createDirectory",
	     .family = "filesystem",
	     .params_type = "FsCreateDirectoryParams",
	     .func = esd_fs_methods_create_directory},
	    {.name = "fs/getMetadata",
	     .family = "filesystem",
	     .params_type = "FsGetMetadataParams",
	     .func = esd_fs_methods_get_metadata},
	    {.name = "fs/canonicalize",
	     .family = "filesystem",
	     .params_type = "FsCanonicalizeParams",
	     .func = esd_fs_methods_canonicalize},
	    {.name = "fs/readDirectory",
	     .family = "filesystem",
	     .params_type = "FsReadDirectoryParams",
	     .func = esd_fs_methods_read_directory},
	    {.name = "fs/walk",
	     .family = "filesystem",
	     .params_type = "FsWalkParams",
	     .func = esd_fs_methods_walk},
	    {.name = "fs/remove",
	     .family = "filesystem",
	     .params_type = "FsRemoveParams",
	     .func = esd_fs_methods_remove},
	    {.name = "fs/copy",
	     .family = "filesystem",
	     .params_type = "FsCopyParams",
	     .func = esd_fs_methods_copy},
	    {.name = "fs/open",
	     .family = "filesystem",
	     .params_type = "FsOpenParams",
	     .func = esd_fs_methods_open},
	    {.name = "fs/readBlock",
	     .family = "filesystem",
	     .params_type = "FsReadBlockParams",
	     .func = esd_fs_methods_read_block},
	    {.name = "fs/writeBlock",
	     .family = "filesystem",
	     .params_type = "FsWriteBlockParams",
	     .capability = "fileWriteStreaming",
	     .since_version = 1,
	     .func = esd_fs_methods_write_block},
	    {.name = "fs/close",
	     .family = "filesystem",
	     .params_type = "FsCloseParams",
	     .func = esd_fs_methods_close},
	    {.name = "fs/watchMissing",
	     .family = "filesystem",
	     .params_type = "FsWatchMissingParams",
	     .capability = "fsWatchMissing",
	     .since_version = 1,
	     .func = esd_fs_methods_watch_missing},
	};

	for (guint i = 0; i < G_N_ELEMENTS(methods); i++) {
		if (!erpc_registry_add_method(registry, &methods[i], plugin, NULL, error))
			return FALSE;
	}
	return TRUE;
}
