/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <fcntl.h>
#include <glib-unix.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "esd-fs-sandbox-exec.h"

/*
 * One run of the helper in the sandbox a process with the same policy
 * gets, through the host's sandbox service (erpc_sandbox_spawn(): bwrap
 * with the policy's mounts and namespaces and the seccomp filter of
 * process/start), the helper as its command, the request on its stdin and
 * the answer on its stdout. Blocking; runs in a worker thread.
 *
 * The helper must start even when the policy hides /usr or the build tree,
 * so its binary, every shared object the daemon has loaded (dl_iterate_phdr:
 * the helper links a subset of the daemon's libraries, libexecrpc, GLib,
 * json-glib and the sanitizer runtimes of a sanitizer build, and the dynamic
 * loader is among them) and /etc/ld.so.cache are bound read-only at their
 * real paths, with symbolic links from the names the loader uses where the
 * policy hides those (erpc_sandbox_command_add_ro_file()). The daemon's list is used rather
 * than the helper's ELF needs because it is known without reading or
 * running anything, already resolved the way the loader resolves, and a
 * superset. The helper's view of the file system therefore differs from the
 * process sandbox's only by these read-only files.
 */

#define ESD_FS_SANDBOX_STDERR_MAX 4096

/*
 * the daemon's own environment the helper inherits: debugging and sanitizer
 * settings; leak checking is switched off, as LeakSanitizer stops the
 * process with ptrace(), which the seccomp filter refuses (test-fs-helper
 * checks the helper for leaks outside the sandbox)
 */
static const gchar *const esd_fs_sandbox_forwarded_env[] =
    {"G_DEBUG", "G_MESSAGES_DEBUG", "MALLOC_CHECK_", "ASAN_OPTIONS", "UBSAN_OPTIONS", NULL};

/**
 * esd_fs_sandbox_helper_path:
 *
 * Returns: the esd-fs-helper to run: $ESD_FS_HELPER (the build tree's under
 *   meson devenv and the tests), else the installed one
 */
const gchar *
esd_fs_sandbox_helper_path(void)
{
	const gchar *override = g_getenv("ESD_FS_HELPER");

	if (override != NULL && override[0] != '\0')
		return override;
	return ESD_FS_HELPER_PATH;
}

static void
esd_fs_sandbox_add_file(GPtrArray *files, const gchar *path)
{
	if (path != NULL && g_path_is_absolute(path))
		g_ptr_array_add(files, g_strdup(path));
}

static gint
esd_fs_sandbox_add_object(struct dl_phdr_info *info, size_t size, gpointer data)
{
	if (info->dlpi_name != NULL && info->dlpi_name[0] == '/')
		esd_fs_sandbox_add_file(data, info->dlpi_name);
	return 0;
}

/* the files the helper needs whatever the policy; computed once per helper path */
static gchar **
esd_fs_sandbox_helper_files(const gchar *helper)
{
	static GMutex lock;
	static gchar *cached_helper = NULL;
	static gchar **cached = NULL;
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&lock);
	g_autoptr(GPtrArray) files = NULL;

	if (cached != NULL && g_strcmp0(cached_helper, helper) == 0)
		return g_strdupv(cached);
	files = g_ptr_array_new_with_free_func(g_free);
	esd_fs_sandbox_add_file(files, helper);
	if (g_file_test("/etc/ld.so.cache", G_FILE_TEST_IS_REGULAR))
		esd_fs_sandbox_add_file(files, "/etc/ld.so.cache");
	dl_iterate_phdr(esd_fs_sandbox_add_object, files);
	g_ptr_array_add(files, NULL);
	g_strfreev(cached);
	g_free(cached_helper);
	cached = (gchar **)g_ptr_array_free(g_steal_pointer(&files), FALSE);
	cached_helper = g_strdup(helper);
	g_debug("the sandboxed helper needs %u files", g_strv_length(cached));
	return g_strdupv(cached);
}

/**
 * esd_fs_sandbox_helper_ro_files:
 *
 * Returns: (transfer full) (nullable): the host files the sandboxed helper
 *   is given, or %NULL when there is no helper to run
 */
gchar **
esd_fs_sandbox_helper_ro_files(void)
{
	const gchar *helper = esd_fs_sandbox_helper_path();

	if (!g_file_test(helper, G_FILE_TEST_IS_EXECUTABLE))
		return NULL;
	return esd_fs_sandbox_helper_files(helper);
}

/* PATH, HOME, and the daemon's debugging settings: nothing from the client */
static gchar **
esd_fs_sandbox_helper_envp(void)
{
	g_autoptr(GPtrArray) envp = g_ptr_array_new_with_free_func(g_free);
	const gchar *home = g_get_home_dir();

	g_ptr_array_add(envp, g_strdup("PATH=/usr/bin:/bin"));
	g_ptr_array_add(envp, g_strdup_printf("HOME=%s", home != NULL ? home : "/"));
	for (guint i = 0; esd_fs_sandbox_forwarded_env[i] != NULL; i++) {
		const gchar *name = esd_fs_sandbox_forwarded_env[i];
		const gchar *value = g_getenv(name);
		if (value == NULL)
			continue;
		if (g_strcmp0(name, "ASAN_OPTIONS") == 0)
			g_ptr_array_add(envp, g_strdup_printf("%s=%s:detect_leaks=0", name, value));
		else
			g_ptr_array_add(envp, g_strdup_printf("%s=%s", name, value));
	}
	g_ptr_array_add(envp, NULL);
	return (gchar **)g_ptr_array_free(g_steal_pointer(&envp), FALSE);
}

static void
esd_fs_sandbox_close(gint *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

/* the pipes of a running helper and what is still to be written to it */
typedef struct {
	gint in_fd;
	gint out_fd;
	gint err_fd;
	GPtrArray *request; /* of GBytes */
	guint segment;
	gsize offset;
	EsdFsAnswer *answer;
	GString *stderr_text;
} EsdFsPump;

static void
esd_fs_pump_clear(EsdFsPump *pump)
{
	esd_fs_sandbox_close(&pump->in_fd);
	esd_fs_sandbox_close(&pump->out_fd);
	esd_fs_sandbox_close(&pump->err_fd);
}

/* writes what the pipe takes; the request is done when every segment is */
static void
esd_fs_pump_write(EsdFsPump *pump)
{
	while (pump->segment < pump->request->len) {
		GBytes *bytes = g_ptr_array_index(pump->request, pump->segment);
		gsize len = 0;
		const gchar *data = g_bytes_get_data(bytes, &len);
		gssize n;

		if (pump->offset == len) {
			pump->segment++;
			pump->offset = 0;
			continue;
		}
		n = write(pump->in_fd, data + pump->offset, len - pump->offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		/* EPIPE: the helper is gone; its exit status tells why */
		if (n <= 0)
			break;
		pump->offset += (gsize)n;
	}
	esd_fs_sandbox_close(&pump->in_fd);
}

/* reads what there is; FALSE with @error when the answer is too large */
static gboolean
esd_fs_pump_read(EsdFsPump *pump, gint *fd, gboolean is_stdout, GError **error)
{
	gchar buf[65536];

	for (;;) {
		gssize n = read(*fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return TRUE;
		if (n <= 0) {
			esd_fs_sandbox_close(fd);
			return TRUE;
		}
		if (is_stdout && !esd_fs_answer_feed(pump->answer, buf, (gsize)n, error))
			return FALSE;
		if (!is_stdout && pump->stderr_text->len < ESD_FS_SANDBOX_STDERR_MAX)
			g_string_append_len(
			    pump->stderr_text,
			    buf,
			    MIN(n, (gssize)(ESD_FS_SANDBOX_STDERR_MAX - pump->stderr_text->len)));
	}
}

/* runs until the helper closed stdout and stderr; FALSE when it must be killed */
static gboolean
esd_fs_pump_run(EsdFsPump *pump, GCancellable *cancellable, GError **error)
{
	GPollFD cancel_fd = {-1, 0, 0};
	gboolean has_cancel = g_cancellable_make_pollfd(cancellable, &cancel_fd);
	gboolean ok = TRUE;

	while (ok && (pump->out_fd >= 0 || pump->err_fd >= 0)) {
		struct pollfd fds[4];
		nfds_t n = 0;
		gint in_index = -1;

		if (pump->in_fd >= 0) {
			in_index = (gint)n;
			fds[n++] = (struct pollfd){pump->in_fd, POLLOUT, 0};
		}
		if (pump->out_fd >= 0)
			fds[n++] = (struct pollfd){pump->out_fd, POLLIN, 0};
		if (pump->err_fd >= 0)
			fds[n++] = (struct pollfd){pump->err_fd, POLLIN, 0};
		if (has_cancel)
			fds[n++] = (struct pollfd){cancel_fd.fd, POLLIN, 0};
		if (poll(fds, n, -1) < 0 && errno != EINTR) {
			ok = esd_fs_set_errno(error, errno);
			break;
		}
		if (g_cancellable_set_error_if_cancelled(cancellable, error)) {
			ok = FALSE;
			break;
		}
		if (in_index >= 0 && fds[in_index].revents != 0)
			esd_fs_pump_write(pump);
		if (pump->out_fd >= 0 && !esd_fs_pump_read(pump, &pump->out_fd, TRUE, error))
			ok = FALSE;
		if (ok && pump->err_fd >= 0)
			esd_fs_pump_read(pump, &pump->err_fd, FALSE, NULL);
	}
	if (has_cancel)
		g_cancellable_release_fd(cancellable);
	return ok;
}

/* what a helper that gave no answer died of; bwrap's own complaints start with `bwrap: ` */
static void
esd_fs_sandbox_failed(gint status, GString *stderr_text, GError **error)
{
	g_autofree gchar *first_line = NULL;
	g_autofree gchar *how = NULL;

	first_line = g_strndup(stderr_text->str, strcspn(stderr_text->str, "\n"));
	if (status < 0)
		how = g_strdup("an unknown status");
	else if (WIFEXITED(status))
		how = g_strdup_printf("exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		how = g_strdup_printf("signal %d", WTERMSIG(status));
	else
		how = g_strdup("an unknown status");
	g_message("the sandboxed file system helper failed with %s: %s", how, stderr_text->str);
	if (g_str_has_prefix(first_line, "bwrap: ")) {
		g_set_error(error,
			    ERPC_SANDBOX_ERROR,
			    ERPC_SANDBOX_ERROR_PREPARATION,
			    "cannot set up the sandbox: %s",
			    first_line + strlen("bwrap: "));
		return;
	}
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_INTERNAL,
		    "the sandboxed file system helper failed with %s",
		    how);
}

/* a pipe: the child's end goes to @command as @target, ours is non-blocking */
static gboolean
esd_fs_sandbox_pipe(ErpcSandboxCommand *command, gint target, gint *ours, GError **error)
{
	gint fds[2] = {-1, -1};

	if (!g_unix_open_pipe(fds, FD_CLOEXEC, error))
		return FALSE;
	*ours = target == 0 ? fds[1] : fds[0];
	erpc_sandbox_command_take_fd(command, target == 0 ? fds[0] : fds[1], target);
	g_unix_set_fd_nonblocking(*ours, TRUE, NULL);
	return TRUE;
}

/* the helper under @policy: its stdio on pipes, @handoff_fd at its own number */
static ErpcSandboxChild *
esd_fs_sandbox_spawn(ErpcSandbox *service,
		     ErpcSandboxPolicy *policy,
		     gint handoff_fd,
		     gboolean serve,
		     EsdFsPump *pump,
		     GError **error)
{
	const gchar *helper = esd_fs_sandbox_helper_path();
	g_autofree gchar *handoff_arg = NULL;
	g_autoptr(ErpcSandboxCommand) command = NULL;
	g_autoptr(GError) error_local = NULL;
	g_auto(GStrv) files = NULL;
	g_auto(GStrv) envp = NULL;
	const gchar *argv[] = {helper, NULL, NULL, NULL};
	guint argc = 1;

	if (serve)
		argv[argc++] = "--serve";
	if (handoff_fd >= 0) {
		handoff_arg = g_strdup_printf("--handoff-fd=%d", handoff_fd);
		argv[argc++] = handoff_arg;
	}
	command = erpc_sandbox_command_new(argv);
	files = esd_fs_sandbox_helper_files(helper);
	for (guint i = 0; files[i] != NULL; i++)
		erpc_sandbox_command_add_ro_file(command, files[i]);
	envp = esd_fs_sandbox_helper_envp();
	erpc_sandbox_command_set_envp(command, (const gchar *const *)envp);
	/* the helper works on absolute paths only: `/` exists in every sandbox */
	erpc_sandbox_command_set_cwd(command, "/");
	if (!esd_fs_sandbox_pipe(command, 0, &pump->in_fd, &error_local) ||
	    !esd_fs_sandbox_pipe(command, 1, &pump->out_fd, &error_local) ||
	    !esd_fs_sandbox_pipe(command, 2, &pump->err_fd, &error_local)) {
		g_set_error(error,
			    ERPC_SANDBOX_ERROR,
			    ERPC_SANDBOX_ERROR_PREPARATION,
			    "cannot start bwrap: %s",
			    error_local->message);
		return NULL;
	}
	if (handoff_fd >= 0) {
		gint dup_fd = fcntl(handoff_fd, F_DUPFD_CLOEXEC, 3);
		if (dup_fd < 0) {
			esd_fs_set_errno(error, errno);
			return NULL;
		}
		erpc_sandbox_command_take_fd(command, dup_fd, handoff_fd);
	}
	return erpc_sandbox_spawn(service, policy, command, error);
}

/* the helper: %ERPC_SANDBOX_ERROR_UNAVAILABLE if it is missing (the service checks bwrap) */
static gboolean
esd_fs_sandbox_check_available(GError **error)
{
	const gchar *helper = esd_fs_sandbox_helper_path();

	if (!g_path_is_absolute(helper) || !g_file_test(helper, G_FILE_TEST_IS_EXECUTABLE)) {
		g_message("the sandboxed file system helper %s is missing", helper);
		g_set_error_literal(error,
				    ERPC_SANDBOX_ERROR,
				    ERPC_SANDBOX_ERROR_UNAVAILABLE,
				    "the requested sandbox is unavailable on this executor: "
				    "the sandboxed file system helper is missing");
		return FALSE;
	}
	return TRUE;
}

/**
 * esd_fs_sandbox_exec:
 * @service: the host's sandbox
 * @policy: a policy of @service with a restricted file system
 * @request: (element-type GBytes): the request, written to the helper's stdin
 * @handoff_fd: the helper's end of a socketpair for a handle, or -1
 * @answer: fed with what the helper writes on its stdout
 * @cancellable: kills the helper when cancelled
 * @error: return location for a #GError, or %NULL
 *
 * Runs the helper once and waits for it. Fails closed: without bwrap, user
 * namespaces or the helper it fails with %ERPC_SANDBOX_ERROR_UNAVAILABLE,
 * when the seccomp filter or bwrap's mounts cannot be set up with
 * %ERPC_SANDBOX_ERROR_PREPARATION, and never runs anything unsandboxed.
 *
 * Returns: %TRUE if the helper exited normally after writing its answer
 */
gboolean
esd_fs_sandbox_exec(ErpcSandbox *service,
		    ErpcSandboxPolicy *policy,
		    GPtrArray *request,
		    gint handoff_fd,
		    EsdFsAnswer *answer,
		    GCancellable *cancellable,
		    GError **error)
{
	g_autoptr(ErpcSandboxChild) child = NULL;
	g_autoptr(GError) error_local = NULL;
	g_autoptr(GString) stderr_text = g_string_new(NULL);
	EsdFsPump pump = {-1, -1, -1, request, 0, 0, answer, stderr_text};
	gboolean pumped;
	gint status = -1;

	if (!esd_fs_sandbox_check_available(error))
		return FALSE;
	child = esd_fs_sandbox_spawn(service, policy, handoff_fd, FALSE, &pump, error);
	if (child == NULL) {
		esd_fs_pump_clear(&pump);
		return FALSE;
	}
	pumped = esd_fs_pump_run(&pump, cancellable, &error_local);
	if (!pumped)
		erpc_sandbox_child_kill(child);
	esd_fs_pump_clear(&pump);
	if (!erpc_sandbox_child_wait(child, NULL, &status, NULL))
		status = -1;
	if (!pumped) {
		g_propagate_error(error, g_steal_pointer(&error_local));
		return FALSE;
	}
	if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		esd_fs_sandbox_failed(status, stderr_text, error);
		return FALSE;
	}
	if (stderr_text->len > 0)
		g_debug("the sandboxed file system helper said: %s", stderr_text->str);
	return TRUE;
}

/**
 * esd_fs_sandbox_spawn_server:
 * @service: the host's sandbox
 * @policy: a policy of @service with a restricted file system
 * @handoff_fd: the helper's end of a socketpair for handles
 * @in_fd: (out): its stdin, non-blocking
 * @out_fd: (out): its stdout, non-blocking
 * @err_fd: (out): its stderr, non-blocking
 * @error: return location for a #GError, or %NULL
 *
 * Starts a helper that serves one request per line (`--serve`) in the
 * sandbox of @policy, failing closed as esd_fs_sandbox_exec() does.
 *
 * Returns: (transfer full): the helper, or %NULL with @error set
 */
ErpcSandboxChild *
esd_fs_sandbox_spawn_server(ErpcSandbox *service,
			    ErpcSandboxPolicy *policy,
			    gint handoff_fd,
			    gint *in_fd,
			    gint *out_fd,
			    gint *err_fd,
			    GError **error)
{
	EsdFsPump pump = {-1, -1, -1, NULL, 0, 0, NULL, NULL};
	ErpcSandboxChild *child;

	if (!esd_fs_sandbox_check_available(error))
		return NULL;
	child = esd_fs_sandbox_spawn(service, policy, handoff_fd, TRUE, &pump, error);
	if (child == NULL) {
		esd_fs_pump_clear(&pump);
		return NULL;
	}
	*in_fd = pump.in_fd;
	*out_fd = pump.out_fd;
	*err_fd = pump.err_fd;
	return child;
}

/**
 * esd_fs_sandbox_describe_failure:
 * @status: a wait status, or -1
 * @stderr_text: what the helper wrote on stderr
 * @error: return location for the #GError a helper that gave no answer is reported with
 */
void
esd_fs_sandbox_describe_failure(gint status, GString *stderr_text, GError **error)
{
	esd_fs_sandbox_failed(status, stderr_text, error);
}
