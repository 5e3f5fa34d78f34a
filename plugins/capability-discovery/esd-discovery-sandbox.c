/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "esd-discovery-sandbox.h"

/*
 * A discovery under a policy that restricts the file system runs in
 * esd-discovery-helper, started by the host's sandbox service in the
 * sandbox a process with that policy gets (erpc_sandbox_spawn()): the
 * helper walks and reads with the sandbox's view and rights, so what the
 * policy denies is what the helper cannot see. Its request is on stdin and
 * its answer on stdout, both memfds, so nothing has to be pumped while it
 * runs; the answer is read once it has exited, at most max_output bytes.
 *
 * As for esd-fs-helper, the helper binary, the shared objects the daemon
 * has loaded (a superset of the helper's, resolved as the loader resolves
 * them) and /etc/ld.so.cache are given to the sandbox read-only, so that it
 * starts whatever the policy hides. It fails closed: no sandbox, no helper
 * or a helper that fails give an error, never an unsandboxed read.
 */

#define ESD_DISCOVERY_STDERR_MAX 4096

static const gchar *const esd_discovery_forwarded_env[] =
    {"G_DEBUG", "G_MESSAGES_DEBUG", "MALLOC_CHECK_", "ASAN_OPTIONS", "UBSAN_OPTIONS", NULL};

/* $ESD_DISCOVERY_HELPER (the build tree's, set by `meson devenv` and the tests), else the
 * installed one: no build-tree path is compiled in */
static const gchar *
esd_discovery_helper_path(void)
{
	const gchar *override = g_getenv("ESD_DISCOVERY_HELPER");

	if (override != NULL && override[0] != '\0')
		return override;
	return ESD_DISCOVERY_HELPER_PATH;
}

static gint
esd_discovery_add_object(struct dl_phdr_info *info, size_t size, gpointer data)
{
	if (info->dlpi_name != NULL && info->dlpi_name[0] == '/')
		g_ptr_array_add(data, g_strdup(info->dlpi_name));
	return 0;
}

static void
esd_discovery_add_ro_files(ErpcSandboxCommand *command, const gchar *helper)
{
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);

	g_ptr_array_add(files, g_strdup(helper));
	if (g_file_test("/etc/ld.so.cache", G_FILE_TEST_IS_REGULAR))
		g_ptr_array_add(files, g_strdup("/etc/ld.so.cache"));
	dl_iterate_phdr(esd_discovery_add_object, files);
	for (guint i = 0; i < files->len; i++)
		erpc_sandbox_command_add_ro_file(command, g_ptr_array_index(files, i));
}

/* PATH, HOME and the daemon's debugging settings: nothing from the client */
static gchar **
esd_discovery_helper_envp(void)
{
	g_autoptr(GPtrArray) envp = g_ptr_array_new_with_free_func(g_free);
	const gchar *home = g_get_home_dir();

	g_ptr_array_add(envp, g_strdup("PATH=/usr/bin:/bin"));
	g_ptr_array_add(envp, g_strdup_printf("HOME=%s", home != NULL ? home : "/"));
	for (guint i = 0; esd_discovery_forwarded_env[i] != NULL; i++) {
		const gchar *name = esd_discovery_forwarded_env[i];
		const gchar *value = g_getenv(name);
		if (value == NULL)
			continue;
		/* LeakSanitizer needs ptrace(), which the seccomp filter refuses */
		if (g_strcmp0(name, "ASAN_OPTIONS") == 0)
			g_ptr_array_add(envp, g_strdup_printf("%s=%s:detect_leaks=0", name, value));
		else
			g_ptr_array_add(envp, g_strdup_printf("%s=%s", name, value));
	}
	g_ptr_array_add(envp, NULL);
	return (gchar **)g_ptr_array_free(g_steal_pointer(&envp), FALSE);
}

static gint
esd_discovery_memfd(const gchar *name, GError **error)
{
	gint fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0)
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "cannot make a memfd: %s",
			    g_strerror(errno));
	return fd;
}

/* at most @max bytes of the memfd @fd, from its start; NULL when there are more */
static GBytes *
esd_discovery_memfd_read(gint fd, gsize max, GError **error)
{
	struct stat st;
	g_autofree gchar *data = NULL;
	gsize done = 0;

	if (fstat(fd, &st) != 0 || st.st_size < 0) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "cannot read the helper's answer");
		return NULL;
	}
	if ((guint64)st.st_size > max) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "the sandboxed discovery helper's answer is too large");
		return NULL;
	}
	data = g_malloc((gsize)st.st_size + 1);
	while (done < (gsize)st.st_size) {
		gssize n = pread(fd, data + done, (gsize)st.st_size - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (gsize)n;
	}
	data[done] = '\0';
	return g_bytes_new_take(g_steal_pointer(&data), done);
}

static void
esd_discovery_helper_failed(gint status, gint err_fd, GError **error)
{
	g_autoptr(GBytes) text = esd_discovery_memfd_read(err_fd, G_MAXSIZE, NULL);
	g_autofree gchar *first_line = NULL;
	g_autofree gchar *how = NULL;
	const gchar *str = text != NULL ? g_bytes_get_data(text, NULL) : "";

	first_line = g_strndup(str, MIN(strcspn(str, "\n"), ESD_DISCOVERY_STDERR_MAX));
	if (WIFEXITED(status))
		how = g_strdup_printf("exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		how = g_strdup_printf("signal %d", WTERMSIG(status));
	else
		how = g_strdup("an unknown status");
	g_message("the sandboxed discovery helper failed with %s: %s", how, first_line);
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
		    "the sandboxed discovery helper failed with %s",
		    how);
}

/**
 * esd_discovery_sandbox_run:
 * @service: the host's sandbox
 * @policy: a policy of @service that restricts the file system
 * @request: the helper's request, one JSON object
 * @max_output: the most the answer may be
 * @cancellable: (nullable): kills the helper when cancelled
 * @error: return location for a #GError, or %NULL
 *
 * Runs esd-discovery-helper once in the sandbox of @policy and waits for
 * it; blocking, for a worker thread.
 *
 * Returns: (transfer full): what the helper wrote, or %NULL with @error
 */
GBytes *
esd_discovery_sandbox_run(ErpcSandbox *service,
			  ErpcSandboxPolicy *policy,
			  const gchar *request,
			  gsize max_output,
			  GCancellable *cancellable,
			  GError **error)
{
	const gchar *helper = esd_discovery_helper_path();
	const gchar *argv[] = {helper, NULL};
	g_autoptr(ErpcSandboxCommand) command = NULL;
	g_autoptr(ErpcSandboxChild) child = NULL;
	g_auto(GStrv) envp = NULL;
	gint in_fd, out_fd, err_fd;
	gint out_copy = -1, err_copy = -1;
	gint status = 0;
	gsize len = strlen(request);
	GBytes *answer;

	if (!g_path_is_absolute(helper) || !g_file_test(helper, G_FILE_TEST_IS_EXECUTABLE)) {
		g_message("the sandboxed discovery helper %s is missing", helper);
		g_set_error_literal(error,
				    ERPC_SANDBOX_ERROR,
				    ERPC_SANDBOX_ERROR_UNAVAILABLE,
				    "the requested sandbox is unavailable on this executor: the "
				    "sandboxed discovery helper is missing");
		return NULL;
	}
	in_fd = esd_discovery_memfd("esd-discovery-request", error);
	if (in_fd < 0)
		return NULL;
	if (write(in_fd, request, len) != (gssize)len || lseek(in_fd, 0, SEEK_SET) != 0) {
		close(in_fd);
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "cannot write the request");
		return NULL;
	}
	command = erpc_sandbox_command_new(argv);
	erpc_sandbox_command_take_fd(command, in_fd, 0);
	out_fd = esd_discovery_memfd("esd-discovery-answer", error);
	if (out_fd < 0)
		return NULL;
	out_copy = fcntl(out_fd, F_DUPFD_CLOEXEC, 3);
	erpc_sandbox_command_take_fd(command, out_fd, 1);
	err_fd = esd_discovery_memfd("esd-discovery-stderr", error);
	if (err_fd < 0) {
		close(out_copy);
		return NULL;
	}
	err_copy = fcntl(err_fd, F_DUPFD_CLOEXEC, 3);
	erpc_sandbox_command_take_fd(command, err_fd, 2);
	if (out_copy < 0 || err_copy < 0) {
		if (out_copy >= 0)
			close(out_copy);
		if (err_copy >= 0)
			close(err_copy);
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "cannot duplicate a memfd");
		return NULL;
	}
	esd_discovery_add_ro_files(command, helper);
	envp = esd_discovery_helper_envp();
	erpc_sandbox_command_set_envp(command, (const gchar *const *)envp);
	/* the helper works on absolute paths only: `/` exists in every sandbox */
	erpc_sandbox_command_set_cwd(command, "/");
	child = erpc_sandbox_spawn(service, policy, command, error);
	if (child == NULL || !erpc_sandbox_child_wait(child, cancellable, &status, error)) {
		close(out_copy);
		close(err_copy);
		return NULL;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		esd_discovery_helper_failed(status, err_copy, error);
		close(out_copy);
		close(err_copy);
		return NULL;
	}
	answer = esd_discovery_memfd_read(out_copy, max_output, error);
	close(out_copy);
	close(err_copy);
	return answer;
}
