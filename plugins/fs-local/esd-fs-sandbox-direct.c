/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <fcntl.h>
#include <gio/gio.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "esd-fs-ops.h"
#include "esd-fs-path.h"
#include "esd-fs-sandbox-direct.h"
#include "esd-fs-sandbox-exec.h"

/*
 * Sandboxed requests without the sandbox. When the host's sandbox service
 * says the sandbox shows a path exactly as the host does, with the access
 * the request needs (erpc_sandbox_check_direct(): no deny entry, protected
 * name, hidden path or mount of its own on the way), the request is done
 * here, with what makes its answer the sandboxed helper's:
 *
 * - no symbolic link is followed: the check is about the path as written,
 *   so a link on the way or at its end (which the helper would follow,
 *   possibly somewhere the sandbox shows otherwise) hands the request to
 *   the helper; one swapped in after the check is caught the same way, as
 *   the resolution is done by openat2(RESOLVE_NO_SYMLINKS) at the time of
 *   the operation and the operation works on the descriptors it returns;
 * - no capability: the helper runs without any (bwrap --cap-drop ALL), so
 *   the thread doing the request drops its effective set for the time of
 *   the request (capabilities are per thread);
 * - what the sandbox treats otherwise falls back too: a special file
 *   (nodev mounts), a directory the daemon cannot write into (the
 *   replacement would be staged in the temporary directory).
 *
 * Falling back runs the whole request in the helper (esd-fs-sandbox-run.c),
 * which answers it.
 */

typedef struct {
	struct __user_cap_data_struct saved[_LINUX_CAPABILITY_U32S_3];
	gboolean dropped;
} EsdFsCaps;

/* the thread's effective capabilities cleared; FALSE if that cannot be */
static gboolean
esd_fs_caps_drop(EsdFsCaps *caps)
{
	struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3];
	gboolean any = FALSE;

	caps->dropped = FALSE;
	if (syscall(SYS_capget, &header, caps->saved) != 0)
		return FALSE;
	for (guint i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		none[i] = caps->saved[i];
		none[i].effective = 0;
		any = any || caps->saved[i].effective != 0;
	}
	if (!any)
		return TRUE;
	header.version = _LINUX_CAPABILITY_VERSION_3;
	header.pid = 0;
	if (syscall(SYS_capset, &header, none) != 0)
		return FALSE;
	caps->dropped = TRUE;
	return TRUE;
}

static void
esd_fs_caps_restore(EsdFsCaps *caps)
{
	struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3};

	if (!caps->dropped)
		return;
	/* within the permitted set, which was not touched */
	if (syscall(SYS_capset, &header, caps->saved) != 0)
		g_critical("cannot restore the thread's capabilities: %s", g_strerror(errno));
	caps->dropped = FALSE;
}

void
esd_fs_direct_clear(EsdFsDirect *direct)
{
	g_clear_pointer(&direct->policy, erpc_sandbox_policy_unref);
	direct->service = NULL;
}

/**
 * esd_fs_direct_check:
 * @service: the host's sandbox
 * @policy: a restricted policy of @service
 * @path: the request's path, absolute and normalised
 * @access: what the request does there
 * @flags: whether it reaches below @path
 *
 * Returns: whether the request may run outside the sandbox; never when
 *   the helper could not run at all (its answer is then sandboxUnavailable),
 *   nor with $ESD_FS_DIRECT set to 0 (tests compare with the helper's answers)
 */
gboolean
esd_fs_direct_check(ErpcSandbox *service,
		    ErpcSandboxPolicy *policy,
		    const gchar *path,
		    ErpcSandboxAccess access,
		    ErpcSandboxDirectFlags flags)
{
	g_auto(GStrv) files = NULL;

	if (g_strcmp0(g_getenv("ESD_FS_DIRECT"), "0") == 0)
		return FALSE;
	files = esd_fs_sandbox_helper_ro_files();
	if (files == NULL)
		return FALSE;
	return erpc_sandbox_check_direct(service,
					 policy,
					 path,
					 access,
					 flags,
					 (const gchar *const *)files);
}

/* the helper answers @call after all */
void
esd_fs_direct_fallback(ErpcCall *call,
		       EsdFsDirect *direct,
		       JsonObject *params,
		       const EsdFsSandboxBlob *blob)
{
	g_debug("%s: to the sandbox", erpc_call_get_method(call));
	esd_fs_sandbox_run(call, direct->service, direct->policy, params, blob, NULL);
}

/* the line tests count */
static void
esd_fs_direct_counted(const gchar *what)
{
	g_debug("%s: direct", what);
}

/*
 * esd_fs_ops_open_regular() without following links: the file is first
 * reached with O_PATH, so that a device (which the sandbox's nodev mounts
 * refuse) is never opened, then reopened through its descriptor.
 */
gint
esd_fs_direct_open_regular(const gchar *path, struct stat *st, gboolean *fallback, GError **error)
{
	struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS};
	g_autofree gchar *proc = NULL;
	esd_autofd gint pathfd = -1;
	esd_autofd gint fd = -1;
	EsdFsCaps caps;
	gint errsv = 0;

	*fallback = FALSE;
	if (!esd_fs_caps_drop(&caps)) {
		*fallback = TRUE;
		return -1;
	}
	pathfd = (gint)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (pathfd < 0) {
		errsv = errno;
	} else if (fstat(pathfd, st) != 0) {
		errsv = errno;
	} else if (S_ISREG(st->st_mode) || S_ISDIR(st->st_mode)) {
		proc = g_strdup_printf("/proc/self/fd/%d", pathfd);
		fd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			errsv = errno;
	} else {
		*fallback = TRUE;
	}
	esd_fs_caps_restore(&caps);
	if (*fallback)
		return -1;
	/* links (ELOOP), no openat2, no /proc: the helper decides */
	if ((pathfd < 0 &&
	     (errsv == ELOOP || errsv == ENOSYS || errsv == EPERM || errsv == EXDEV)) ||
	    (pathfd >= 0 && fd < 0 && errsv == ENOENT)) {
		*fallback = TRUE;
		return -1;
	}
	esd_fs_direct_counted("fs/readFile");
	if (errsv != 0) {
		esd_fs_set_errno(error, errsv);
		return -1;
	}
	if (fstat(fd, st) != 0) {
		esd_fs_set_errno(error, errno);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		esd_fs_not_a_file(error, path);
		return -1;
	}
	return esd_fs_steal_fd(&fd);
}

/* fs/getMetadata as it follows links, where there is none */
gboolean
esd_fs_direct_get_metadata(const gchar *path, GString *out, gboolean *fallback, GError **error)
{
	g_autoptr(GError) error_local = NULL;
	EsdFsCaps caps;
	gboolean ok;

	*fallback = FALSE;
	if (!esd_fs_caps_drop(&caps)) {
		*fallback = TRUE;
		return FALSE;
	}
	ok = esd_fs_ops_get_metadata(path, FALSE, out, &error_local);
	esd_fs_caps_restore(&caps);
	if (!ok && esd_fs_error_is_symlink(error_local)) {
		*fallback = TRUE;
		return FALSE;
	}
	esd_fs_direct_counted("fs/getMetadata");
	if (!ok) {
		g_propagate_error(error, g_steal_pointer(&error_local));
		return FALSE;
	}
	return TRUE;
}

static gboolean
esd_fs_direct_mkdir(const gchar *path, gboolean recursive, gboolean *fallback, GError **error)
{
	g_autoptr(GError) error_local = NULL;
	const gchar *leaf = NULL;
	esd_autofd gint dirfd = -1;
	struct stat st;
	gint errsv;

	dirfd = esd_fs_open_parent_nofollow(path, &leaf, &error_local);
	if (dirfd < 0) {
		/* a missing parent is made by the recursive walk of the helper */
		if (esd_fs_error_is_symlink(error_local) ||
		    (recursive && g_error_matches(error_local, ERPC_ERROR, ERPC_ERROR_NOT_FOUND))) {
			*fallback = TRUE;
			return FALSE;
		}
		g_propagate_error(error, g_steal_pointer(&error_local));
		return FALSE;
	}
	if (mkdirat(dirfd, leaf, 0777) == 0)
		return TRUE;
	errsv = errno;
	if (!recursive)
		return esd_fs_set_errno(error, errsv);
	/* as esd_fs_ops_mkdir_all(): an existing directory is fine, even through a link */
	if (fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode)) {
			*fallback = TRUE;
			return FALSE;
		}
		if (S_ISDIR(st.st_mode))
			return TRUE;
	}
	return esd_fs_set_errno(error, errsv);
}

/* fs/createDirectory as it follows links, where there is none on the way */
gboolean
esd_fs_direct_create_directory(const gchar *path,
			       gboolean recursive,
			       gboolean *fallback,
			       GError **error)
{
	EsdFsCaps caps;
	gboolean ok;

	*fallback = FALSE;
	if (!esd_fs_caps_drop(&caps)) {
		*fallback = TRUE;
		return FALSE;
	}
	ok = esd_fs_direct_mkdir(path, recursive, fallback, error);
	esd_fs_caps_restore(&caps);
	if (!*fallback)
		esd_fs_direct_counted("fs/createDirectory");
	return ok;
}

static gboolean
esd_fs_direct_unlink(const gchar *path,
		     gboolean force,
		     gboolean follow,
		     gboolean *fallback,
		     GError **error)
{
	g_autoptr(GError) error_local = NULL;
	const gchar *leaf = NULL;
	esd_autofd gint dirfd = esd_fs_open_parent_nofollow(path, &leaf, &error_local);
	struct stat st;

	if (dirfd < 0) {
		if (esd_fs_error_is_symlink(error_local)) {
			*fallback = TRUE;
			return FALSE;
		}
		if (force && g_error_matches(error_local, ERPC_ERROR, ERPC_ERROR_NOT_FOUND))
			return TRUE;
		g_propagate_error(error, g_steal_pointer(&error_local));
		return FALSE;
	}
	if (fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (force && errno == ENOENT)
			return TRUE;
		return esd_fs_set_errno(error, errno);
	}
	/* a directory may hold the sandbox's mount points; a refused link has its own answer */
	if (S_ISDIR(st.st_mode) || (S_ISLNK(st.st_mode) && !follow)) {
		*fallback = TRUE;
		return FALSE;
	}
	if (unlinkat(dirfd, leaf, 0) != 0)
		return esd_fs_set_errno(error, errno);
	return TRUE;
}

/*
 * fs/remove of what is not a directory: the file, or a link itself (never
 * what it points to, in the sandbox either), from the directory reached
 * without links
 */
gboolean
esd_fs_direct_remove(const gchar *path,
		     gboolean recursive,
		     gboolean force,
		     gboolean follow,
		     gboolean *fallback,
		     GError **error)
{
	EsdFsCaps caps;
	gboolean ok;

	*fallback = FALSE;
	/* refused with its own message */
	if ((!follow && recursive) || !esd_fs_caps_drop(&caps)) {
		*fallback = TRUE;
		return FALSE;
	}
	ok = esd_fs_direct_unlink(path, force, follow, fallback, error);
	esd_fs_caps_restore(&caps);
	if (!*fallback)
		esd_fs_direct_counted("fs/remove");
	return ok;
}

/* what a direct job does in its worker: a result, or NULL with an error or *fallback */
typedef GString *(*EsdFsDirectFunc)(gpointer data,
				    gboolean *fallback,
				    GCancellable *cancellable,
				    GError **error);

typedef struct {
	ErpcCall *call;
	EsdFsDirect direct;
	const EsdFsSandboxBlob *blob; /* NULL, or &own_blob */
	EsdFsSandboxBlob own_blob;    /* borrowed from the call's frame */
	EsdFsDirectFunc func;
	gchar *path;
	gboolean fallback;
} EsdFsDirectJob;

static void
esd_fs_direct_job_free(gpointer data)
{
	EsdFsDirectJob *job = data;

	g_object_unref(job->call);
	esd_fs_direct_clear(&job->direct);
	g_free(job->path);
	g_free(job);
}

static void
esd_fs_direct_string_free(gpointer data)
{
	g_string_free(data, TRUE);
}

static void
esd_fs_direct_job_thread(GTask *task,
			 gpointer source_object,
			 gpointer task_data,
			 GCancellable *cancellable)
{
	EsdFsDirectJob *job = task_data;
	GError *error = NULL;
	GString *result;
	EsdFsCaps caps;

	if (!esd_fs_caps_drop(&caps)) {
		job->fallback = TRUE;
		g_task_return_pointer(task, NULL, NULL);
		return;
	}
	result = job->func(job, &job->fallback, cancellable, &error);
	esd_fs_caps_restore(&caps);
	if (result == NULL && !job->fallback) {
		g_task_return_error(task, error);
		return;
	}
	g_clear_error(&error);
	g_task_return_pointer(task, result, esd_fs_direct_string_free);
}

static void
esd_fs_direct_job_done_cb(GObject *source_object, GAsyncResult *res, gpointer user_data)
{
	EsdFsDirectJob *job = g_task_get_task_data(G_TASK(res));
	g_autoptr(GError) error = NULL;
	GString *result = g_task_propagate_pointer(G_TASK(res), &error);
	JsonNode *params;

	if (result != NULL) {
		esd_fs_direct_counted(erpc_call_get_method(job->call));
		erpc_call_return_gstring(job->call, result);
		return;
	}
	if (!job->fallback) {
		esd_fs_direct_counted(erpc_call_get_method(job->call));
		erpc_call_return_error(job->call, error);
		return;
	}
	params = erpc_call_get_params(job->call);
	esd_fs_direct_fallback(job->call, &job->direct, json_node_get_object(params), job->blob);
}

static void
esd_fs_direct_job_run(ErpcCall *call,
		      EsdFsDirect *direct,
		      const EsdFsSandboxBlob *blob,
		      const gchar *path,
		      EsdFsDirectFunc func)
{
	g_autoptr(GTask) task = NULL;
	EsdFsDirectJob *job = g_new0(EsdFsDirectJob, 1);

	job->call = g_object_ref(call);
	job->direct = *direct;
	direct->policy = NULL;
	if (blob != NULL) {
		job->own_blob = *blob;
		job->blob = &job->own_blob;
	}
	job->path = g_strdup(path);
	job->func = func;
	task = g_task_new(NULL, erpc_call_get_cancellable(call), esd_fs_direct_job_done_cb, NULL);
	g_task_set_source_tag(task, esd_fs_direct_job_run);
	g_task_set_task_data(task, job, esd_fs_direct_job_free);
	g_task_run_in_thread(task, esd_fs_direct_job_thread);
}

static GString *
esd_fs_direct_write_func(gpointer data,
			 gboolean *fallback,
			 GCancellable *cancellable,
			 GError **error)
{
	EsdFsDirectJob *job = data;

	if (!esd_fs_ops_write_file_direct(job->path,
					  job->own_blob.text,
					  job->own_blob.len,
					  fallback,
					  error))
		return NULL;
	return g_string_new("{}");
}

/**
 * esd_fs_direct_write_file:
 * @call: a sandboxed fs/writeFile, answered by this function or later
 * @direct: what esd_fs_direct_check() allowed; taken over
 * @blob: its `dataBase64`, in the call's frame
 * @path: its path
 *
 * Writes the file in a worker thread outside the sandbox, or hands the
 * request to the sandboxed helper where the write would not be the same.
 */
void
esd_fs_direct_write_file(ErpcCall *call,
			 EsdFsDirect *direct,
			 const EsdFsSandboxBlob *blob,
			 const gchar *path)
{
	esd_fs_direct_job_run(call, direct, blob, path, esd_fs_direct_write_func);
}

static GString *
esd_fs_direct_list_func(gpointer data,
			gboolean *fallback,
			GCancellable *cancellable,
			GError **error)
{
	EsdFsDirectJob *job = data;

	return esd_fs_ops_read_directory_direct(job->path, fallback, cancellable, error);
}

/**
 * esd_fs_direct_read_directory:
 * @call: a sandboxed fs/readDirectory, answered by this function or later
 * @direct: what esd_fs_direct_check() allowed for the tree; taken over
 * @path: its path
 *
 * Lists the directory in a worker thread outside the sandbox, or hands the
 * request to the sandboxed helper when a link is on the way or among the
 * entries.
 */
void
esd_fs_direct_read_directory(ErpcCall *call, EsdFsDirect *direct, const gchar *path)
{
	esd_fs_direct_job_run(call, direct, NULL, path, esd_fs_direct_list_func);
}
