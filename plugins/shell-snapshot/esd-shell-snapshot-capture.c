/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gunixinputstream.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "esd-shell-snapshot-capture.h"

/* where the capture writes the snapshot; its stdout and stderr (what the
 * startup files print) go to /dev/null */
#define ESD_SHELL_SNAPSHOT_CAPTURE_FD 3

/* the variables bash sets or manages itself: never restored */
#define ESD_SHELL_SNAPSHOT_BASH_OWN                                                                \
	"BASH:BASHOPTS:BASHPID:BASH_ALIASES:BASH_ARGC:BASH_ARGV:BASH_ARGV0:"                       \
	"BASH_CMDS:BASH_COMMAND:BASH_ENV:BASH_EXECUTION_STRING:BASH_LINENO:"                       \
	"BASH_LOADABLES_PATH:BASH_REMATCH:BASH_SOURCE:BASH_SUBSHELL:"                              \
	"BASH_VERSINFO:BASH_VERSION:COLUMNS:COMP_WORDBREAKS:DIRSTACK:"                             \
	"EPOCHREALTIME:EPOCHSECONDS:EUID:FUNCNAME:GROUPS:HISTCMD:LINENO:LINES:"                    \
	"OLDPWD:PIPESTATUS:PPID:PWD:RANDOM:SECONDS:SHELLOPTS:SHLVL:SRANDOM:UID:"                   \
	"_:"

/*
 * Runs as `bash -lc SCRIPT`, after the login files: reads ~/.bashrc as the
 * reference does, then writes to fd 3 a script that restores the functions
 * (and which of them are exported), the aliases, the exported variables
 * but those bash manages itself, the shopt and set options. A variable
 * exported in the environment of the restoring shell keeps its value: the
 * request's env wins. Options come last, so that errexit or nounset do not
 * cut the restore short. Needs bash 5 for ${x@a} and ${x@Q}.
 */
static const gchar esd_shell_snapshot_bash_script[] =
    "[ \"${BASH_VERSINFO[0]:-0}\" -ge 5 ] || builtin exit 125\n"
    "if [ -z \"${BASH_ENV-}\" ] && [ -r \"$HOME/.bashrc\" ]; then builtin . \"$HOME/.bashrc\"; fi\n"
    "{\n"
    "builtin printf '%s\\n' 'builtin unalias -a 2>/dev/null'\n"
    "builtin declare -f\n"
    "while IFS= builtin read -r __esd_line; do\n"
    "  [[ $__esd_line == 'declare -fx '* ]] && builtin printf 'builtin %s\\n' \"$__esd_line\"\n"
    "done < <(builtin declare -F)\n"
    "builtin alias -p\n"
    "while IFS= builtin read -r __esd_line; do\n"
    "  case :" ESD_SHELL_SNAPSHOT_BASH_OWN " in\n"
    "  *:\"$__esd_line\":*) continue ;;\n"
    "  esac\n"
    "  [[ $__esd_line =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue\n"
    "  builtin printf '[[ ${%s@a} == *x* ]] || builtin export %s=%s\\n' \"$__esd_line\" "
    "\"$__esd_line\" \"${!__esd_line@Q}\"\n"
    "done < <(builtin compgen -e)\n"
    "while IFS= builtin read -r __esd_line; do\n"
    "  [[ $__esd_line == *' login_shell' ]] || builtin printf 'builtin %s\\n' \"$__esd_line\"\n"
    "done < <(builtin shopt -p)\n"
    "while IFS= builtin read -r __esd_line; do\n"
    "  [[ $__esd_line == *' privileged' ]] || builtin printf 'builtin %s\\n' \"$__esd_line\"\n"
    "done < <(builtin set +o)\n"
    "builtin printf '%s\\n' 'builtin true' '# end of shell snapshot'\n"
    "} >&3 2>/dev/null\n"
    "builtin exit 0\n";

/*
 * Runs as `sh -lc SCRIPT` (dash reads /etc/profile and ~/.profile; bash
 * named sh reads its login files) and writes to fd 3 what a POSIX shell
 * can list: the aliases, the functions where `typeset -f` lists them (not
 * in dash), `export -p` and the `set` options, options last. The restoring command
 * itself keeps the request's values (esd_shell_snapshot_restore_argv()),
 * as `export -p` says nothing a later shell could test.
 */
static const gchar esd_shell_snapshot_sh_script[] =
    "{\n"
    "printf '%s\\n' 'unalias -a 2>/dev/null'\n"
    "alias | while IFS= read -r __esd_line; do\n"
    "  case $__esd_line in\n"
    "  'alias '*) printf '%s\\n' \"$__esd_line\" ;;\n"
    "  *) printf 'alias %s\\n' \"$__esd_line\" ;;\n"
    "  esac\n"
    "done\n"
    "if command -v typeset >/dev/null 2>&1; then typeset -f; fi\n"
    "export -p\n"
    "set +o | while IFS= read -r __esd_line; do\n"
    "  case $__esd_line in\n"
    "  *' privileged' | *' interactive' | *' stdin' | *' monitor') ;;\n"
    "  *) printf '%s\\n' \"$__esd_line\" ;;\n"
    "  esac\n"
    "done\n"
    "printf '%s\\n' true '# end of shell snapshot'\n"
    "} >&3 2>/dev/null\n"
    "exit 0\n";

/**
 * esd_shell_snapshot_capture_script:
 * @shell: a shell
 *
 * Returns: (nullable): the script that captures @shell's state, or %NULL
 *   if snapshots of @shell are not made (the command then runs as sent)
 */
const gchar *
esd_shell_snapshot_capture_script(EsdShellSnapshotShell shell)
{
	switch (shell) {
	case ESD_SHELL_SNAPSHOT_SHELL_BASH:
		return esd_shell_snapshot_bash_script;
	case ESD_SHELL_SNAPSHOT_SHELL_SH:
		return esd_shell_snapshot_sh_script;
	case ESD_SHELL_SNAPSHOT_SHELL_ZSH:
	default:
		return NULL;
	}
}

static gboolean
esd_shell_snapshot_is_name(const gchar *name, gsize len)
{
	if (len == 0 || g_ascii_isdigit(name[0]))
		return FALSE;
	for (gsize i = 0; i < len; i++) {
		if (!g_ascii_isalnum(name[i]) && name[i] != '_')
			return FALSE;
	}
	return TRUE;
}

/* the names `export -p` set in an sh snapshot: lines `export NAME=...` (or
 * `declare -x NAME=...` from bash); a value's own lines start otherwise */
static gchar **
esd_shell_snapshot_exported_names(const gchar *data, gsize len)
{
	g_autoptr(GStrvBuilder) builder = g_strv_builder_new();
	const gchar *end = data + len;

	for (const gchar *line = data; line < end;) {
		const gchar *eol = memchr(line, '\n', (gsize)(end - line));
		const gchar *name = NULL;
		gsize name_len;

		if (eol == NULL)
			eol = end;
		if ((gsize)(eol - line) > 7 && memcmp(line, "export ", 7) == 0)
			name = line + 7;
		else if ((gsize)(eol - line) > 11 && memcmp(line, "declare -", 9) == 0) {
			const gchar *space = memchr(line + 9, ' ', (gsize)(eol - line - 9));
			if (space != NULL &&
			    memchr(line + 9, 'x', (gsize)(space - line - 9)) != NULL)
				name = space + 1;
		}
		if (name != NULL) {
			name_len = strcspn(name, "=\n");
			if (name + name_len <= eol && esd_shell_snapshot_is_name(name, name_len)) {
				g_autofree gchar *copy = g_strndup(name, name_len);
				g_strv_builder_add(builder, copy);
			}
		}
		line = eol + 1;
	}
	return g_strv_builder_end(builder);
}

/**
 * esd_shell_snapshot_image_free:
 * @self: (nullable): an image
 *
 * Closes its descriptor and frees it.
 */
void
esd_shell_snapshot_image_free(EsdShellSnapshotImage *self)
{
	if (self == NULL)
		return;
	if (self->fd >= 0)
		close(self->fd);
	g_strfreev(self->names);
	g_free(self);
}

/**
 * esd_shell_snapshot_restore_argv:
 * @shell: the shell of the snapshot
 * @argv: the request's `[shell.path, "-lc", script, args...]`
 * @snapshot_fd: the descriptor number the command gets the snapshot as
 * @keep: (nullable): for `sh`, the variables of the command's environment
 *   the snapshot sets too, whose values the command keeps
 *
 * The command that runs the script with the snapshot instead of the login
 * files. The snapshot is read from its descriptor, which is then closed
 * (`command exec`: a restored function named exec does not stand in, and
 * `builtin exec` would not keep the redirection), and the script follows on
 * a line of its own so that restored options (shopt extglob) apply to how
 * it is parsed. The script's own arguments stay. For bash, `-p` keeps it
 * from reading $BASH_ENV and importing functions from the environment (the
 * snapshot has them); for sh, the values of @keep are saved before the
 * snapshot and put back after it, and a descriptor above 9, which dash
 * cannot name in a redirection, stays open (read-only, sealed).
 *
 * Returns: (transfer full): the new argv
 */
gchar **
esd_shell_snapshot_restore_argv(EsdShellSnapshotShell shell,
				const gchar *const *argv,
				gint snapshot_fd,
				const gchar *const *keep)
{
	g_autoptr(GStrvBuilder) builder = g_strv_builder_new();
	g_autoptr(GString) script = g_string_new(NULL);

	g_return_val_if_fail(shell != ESD_SHELL_SNAPSHOT_SHELL_ZSH, NULL);
	g_return_val_if_fail(g_strv_length((gchar **)argv) >= 3, NULL);
	if (shell == ESD_SHELL_SNAPSHOT_SHELL_BASH) {
		g_string_append_printf(
		    script,
		    "builtin set +o privileged; builtin . /dev/fd/%d >/dev/null || "
		    "builtin printf 'failed to restore shell snapshot\\n' >&2; "
		    "command exec %d<&-\n",
		    snapshot_fd,
		    snapshot_fd);
	} else {
		for (guint i = 0; keep != NULL && keep[i] != NULL; i++)
			g_string_append_printf(script, "__esd_keep_%s=$%s; ", keep[i], keep[i]);
		g_string_append_printf(script,
				       ". /dev/fd/%d >/dev/null || printf 'failed to restore shell "
				       "snapshot\\n' >&2",
				       snapshot_fd);
		/* dash names descriptors up to 9 only: a higher one stays open */
		if (snapshot_fd <= 9)
			g_string_append_printf(script, "; command exec %d<&-", snapshot_fd);
		for (guint i = 0; keep != NULL && keep[i] != NULL; i++)
			g_string_append_printf(script,
					       "; %s=$__esd_keep_%s; unset __esd_keep_%s",
					       keep[i],
					       keep[i],
					       keep[i]);
		g_string_append_c(script, '\n');
	}
	g_string_append(script, argv[2]);
	g_strv_builder_add(builder, argv[0]);
	g_strv_builder_add(builder, shell == ESD_SHELL_SNAPSHOT_SHELL_BASH ? "-pc" : "-c");
	g_strv_builder_add(builder, script->str);
	for (guint i = 3; argv[i] != NULL; i++)
		g_strv_builder_add(builder, argv[i]);
	return g_strv_builder_end(builder);
}

/* one capture: the shell, the pipe it writes the snapshot to, a deadline */
typedef struct {
	EsdShellSnapshotShell shell;
	gsize max_bytes;
	GByteArray *data;
	GInputStream *stream;
	GCancellable *kill; /* stops the shell and the reads */
	GCancellable *cancellable;
	gulong cancelled_id;
	GSubprocess *process; /* or NULL in the sandbox */
	GSource *timeout;
	gboolean eof;
	gboolean exited;
	gint wait_status;
	gboolean done;
} EsdShellSnapshotCapture;

static void
esd_shell_snapshot_capture_free(gpointer data)
{
	EsdShellSnapshotCapture *self = data;

	if (self->cancelled_id != 0)
		g_cancellable_disconnect(self->cancellable, self->cancelled_id);
	g_clear_object(&self->cancellable);
	if (self->timeout != NULL) {
		g_source_destroy(self->timeout);
		g_source_unref(self->timeout);
	}
	g_byte_array_unref(self->data);
	g_clear_object(&self->stream);
	g_clear_object(&self->kill);
	g_clear_object(&self->process);
	g_free(self);
}

/* a sealed, read-only-to-everyone memfd holding @data */
static gint
esd_shell_snapshot_memfd(const guint8 *data, gsize len, GError **error)
{
	g_autofree gchar *unused = NULL;
	gint fd = memfd_create("esd-shell-snapshot", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	gsize done = 0;

	if (fd < 0) {
		gint saved = errno;
		g_set_error(error,
			    G_IO_ERROR,
			    g_io_error_from_errno(saved),
			    "memfd_create: %s",
			    g_strerror(saved));
		return -1;
	}
	while (done < len) {
		gssize n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			gint saved = n < 0 ? errno : EIO;
			close(fd);
			g_set_error(error,
				    G_IO_ERROR,
				    g_io_error_from_errno(saved),
				    "cannot write a shell snapshot: %s",
				    g_strerror(saved));
			return -1;
		}
		done += (gsize)n;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
		gint saved = errno;
		close(fd);
		g_set_error(error,
			    G_IO_ERROR,
			    g_io_error_from_errno(saved),
			    "cannot seal a shell snapshot: %s",
			    g_strerror(saved));
		return -1;
	}
	return fd;
}

static void
esd_shell_snapshot_capture_fail(GTask *task, GError *error)
{
	EsdShellSnapshotCapture *self = g_task_get_task_data(task);

	if (self->done) {
		g_error_free(error);
		return;
	}
	self->done = TRUE;
	g_cancellable_cancel(self->kill);
	if (self->process != NULL)
		g_subprocess_force_exit(self->process);
	g_task_return_error(task, error);
}

/* finished once the shell exited and wrote the whole snapshot */
static void
esd_shell_snapshot_capture_check(GTask *task)
{
	EsdShellSnapshotCapture *self = g_task_get_task_data(task);
	gsize trailer = strlen(ESD_SHELL_SNAPSHOT_TRAILER);
	gboolean complete;
	GError *error = NULL;
	EsdShellSnapshotImage *image;
	gint fd;

	if (self->done || !self->exited)
		return;
	complete =
	    self->data->len >= trailer && memcmp(self->data->data + self->data->len - trailer,
						 ESD_SHELL_SNAPSHOT_TRAILER,
						 trailer) == 0;
	/* a background job of the startup files may keep the pipe open */
	if (!complete && !self->eof)
		return;
	if (!WIFEXITED(self->wait_status) || WEXITSTATUS(self->wait_status) != 0 || !complete) {
		esd_shell_snapshot_capture_fail(task,
						g_error_new(G_IO_ERROR,
							    G_IO_ERROR_FAILED,
							    "the shell snapshot capture failed "
							    "(wait status %d)",
							    self->wait_status));
		return;
	}
	fd = esd_shell_snapshot_memfd(self->data->data, self->data->len, &error);
	if (fd < 0) {
		esd_shell_snapshot_capture_fail(task, error);
		return;
	}
	image = g_new0(EsdShellSnapshotImage, 1);
	image->fd = fd;
	if (self->shell == ESD_SHELL_SNAPSHOT_SHELL_SH)
		image->names = esd_shell_snapshot_exported_names((const gchar *)self->data->data,
								 self->data->len);
	self->done = TRUE;
	g_cancellable_cancel(self->kill);
	g_task_return_pointer(task, image, (GDestroyNotify)esd_shell_snapshot_image_free);
}

static void
esd_shell_snapshot_capture_read_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	g_autoptr(GTask) task = user_data;
	EsdShellSnapshotCapture *self = g_task_get_task_data(task);
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) bytes =
	    g_input_stream_read_bytes_finish(G_INPUT_STREAM(source), result, &error);

	if (self->done)
		return;
	if (bytes == NULL) {
		esd_shell_snapshot_capture_fail(task, g_steal_pointer(&error));
		return;
	}
	if (g_bytes_get_size(bytes) == 0) {
		self->eof = TRUE;
		esd_shell_snapshot_capture_check(task);
		return;
	}
	if (self->data->len + g_bytes_get_size(bytes) > self->max_bytes) {
		esd_shell_snapshot_capture_fail(
		    task,
		    g_error_new(G_IO_ERROR,
				G_IO_ERROR_MESSAGE_TOO_LARGE,
				"the shell snapshot exceeds %" G_GSIZE_FORMAT " bytes",
				self->max_bytes));
		return;
	}
	g_byte_array_append(self->data,
			    g_bytes_get_data(bytes, NULL),
			    (guint)g_bytes_get_size(bytes));
	esd_shell_snapshot_capture_check(task);
	if (self->done)
		return;
	g_input_stream_read_bytes_async(self->stream,
					64 * 1024,
					G_PRIORITY_DEFAULT,
					self->kill,
					esd_shell_snapshot_capture_read_cb,
					g_object_ref(task));
}

static void
esd_shell_snapshot_capture_exited(GTask *task, gint wait_status)
{
	EsdShellSnapshotCapture *self = g_task_get_task_data(task);

	self->exited = TRUE;
	self->wait_status = wait_status;
	esd_shell_snapshot_capture_check(task);
}

static void
esd_shell_snapshot_capture_wait_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	g_autoptr(GTask) task = user_data;
	EsdShellSnapshotCapture *self = g_task_get_task_data(task);
	g_autoptr(GError) error = NULL;

	if (self->done)
		return;
	if (!g_subprocess_wait_finish(G_SUBPROCESS(source), result, &error)) {
		esd_shell_snapshot_capture_fail(task, g_steal_pointer(&error));
		return;
	}
	esd_shell_snapshot_capture_exited(task, g_subprocess_get_status(G_SUBPROCESS(source)));
}

static void
esd_shell_snapshot_capture_run_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	g_autoptr(GTask) task = user_data;
	EsdShellSnapshotCapture *self = g_task_get_task_data(task);
	g_autoptr(GError) error = NULL;
	gint wait_status = 0;

	if (!erpc_sandbox_run_finish(ERPC_SANDBOX(source), result, &wait_status, &error)) {
		if (!self->done)
			esd_shell_snapshot_capture_fail(task, g_steal_pointer(&error));
		return;
	}
	if (!self->done)
		esd_shell_snapshot_capture_exited(task, wait_status);
}

static gboolean
esd_shell_snapshot_capture_timeout_cb(gpointer user_data)
{
	GTask *task = user_data;
	EsdShellSnapshotCapture *self = g_task_get_task_data(task);

	g_clear_pointer(&self->timeout, g_source_unref);
	esd_shell_snapshot_capture_fail(
	    task,
	    g_error_new_literal(G_IO_ERROR, G_IO_ERROR_TIMED_OUT, "the shell snapshot timed out"));
	return G_SOURCE_REMOVE;
}

static void
esd_shell_snapshot_capture_cancelled_cb(GCancellable *cancellable, gpointer user_data)
{
	g_cancellable_cancel(G_CANCELLABLE(user_data));
}

/**
 * esd_shell_snapshot_capture_async:
 * @shell: the shell
 * @program: the shell's absolute path
 * @envp: the command's environment
 * @cwd: the command's working directory
 * @sandbox: the host's sandbox service
 * @policy: (nullable): the command's isolating policy, or %NULL to run the
 *   capture on the host as the command would be
 * @max_bytes: the largest snapshot kept
 * @timeout_ms: how long the login files may take
 * @cancellable: (nullable): stops the capture (and kills the shell)
 * @callback: called with the snapshot
 * @user_data: for @callback
 *
 * Runs the login shell as the command would run (environment, directory,
 * sandbox) with a script that writes its state to a pipe, asynchronously.
 */
void
esd_shell_snapshot_capture_async(EsdShellSnapshotShell shell,
				 const gchar *program,
				 const gchar *const *envp,
				 const gchar *cwd,
				 ErpcSandbox *sandbox,
				 ErpcSandboxPolicy *policy,
				 gsize max_bytes,
				 guint timeout_ms,
				 GCancellable *cancellable,
				 GAsyncReadyCallback callback,
				 gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(NULL, cancellable, callback, user_data);
	EsdShellSnapshotCapture *self = g_new0(EsdShellSnapshotCapture, 1);
	const gchar *script = esd_shell_snapshot_capture_script(shell);
	const gchar *argv[] = {program, "-lc", script, NULL};
	g_autoptr(GError) error = NULL;
	gint fds[2];

	g_task_set_source_tag(task, esd_shell_snapshot_capture_async);
	self->shell = shell;
	self->max_bytes = max_bytes;
	self->data = g_byte_array_new();
	self->kill = g_cancellable_new();
	g_task_set_task_data(task, self, esd_shell_snapshot_capture_free);
	if (cancellable != NULL) {
		self->cancellable = g_object_ref(cancellable);
		self->cancelled_id =
		    g_cancellable_connect(cancellable,
					  G_CALLBACK(esd_shell_snapshot_capture_cancelled_cb),
					  g_object_ref(self->kill),
					  g_object_unref);
	}
	g_return_if_fail(script != NULL);
	if (pipe2(fds, O_CLOEXEC) != 0) {
		gint saved = errno;
		g_task_return_new_error(task,
					G_IO_ERROR,
					g_io_error_from_errno(saved),
					"pipe: %s",
					g_strerror(saved));
		return;
	}
	self->stream = g_unix_input_stream_new(fds[0], TRUE);
	if (policy != NULL) {
		g_autoptr(ErpcSandboxCommand) command = erpc_sandbox_command_new(argv);

		erpc_sandbox_command_set_envp(command, envp);
		erpc_sandbox_command_set_cwd(command, cwd);
		erpc_sandbox_command_take_fd(command, fds[1], ESD_SHELL_SNAPSHOT_CAPTURE_FD);
		erpc_sandbox_run_async(sandbox,
				       policy,
				       command,
				       self->kill,
				       esd_shell_snapshot_capture_run_cb,
				       g_object_ref(task));
	} else {
		g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(
		    G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
		gint null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (null_fd < 0) {
			close(fds[1]);
			g_task_return_new_error(task,
						G_IO_ERROR,
						G_IO_ERROR_FAILED,
						"cannot open /dev/null");
			return;
		}
		g_subprocess_launcher_set_environ(launcher, (gchar **)envp);
		g_subprocess_launcher_set_cwd(launcher, cwd);
		g_subprocess_launcher_take_stdin_fd(launcher, null_fd);
		g_subprocess_launcher_take_fd(launcher, fds[1], ESD_SHELL_SNAPSHOT_CAPTURE_FD);
		self->process = g_subprocess_launcher_spawnv(launcher, argv, &error);
		/* the launcher holds the write end until it goes */
		g_clear_object(&launcher);
		if (self->process == NULL) {
			g_task_return_error(task, g_steal_pointer(&error));
			return;
		}
		g_subprocess_wait_async(self->process,
					self->kill,
					esd_shell_snapshot_capture_wait_cb,
					g_object_ref(task));
	}
	self->timeout = g_timeout_source_new(timeout_ms);
	g_source_set_callback(self->timeout, esd_shell_snapshot_capture_timeout_cb, task, NULL);
	g_source_attach(self->timeout, g_main_context_get_thread_default());
	g_input_stream_read_bytes_async(self->stream,
					64 * 1024,
					G_PRIORITY_DEFAULT,
					self->kill,
					esd_shell_snapshot_capture_read_cb,
					g_object_ref(task));
}

/**
 * esd_shell_snapshot_capture_finish:
 * @result: the result given to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): the snapshot, a sealed memfd owned by the
 *   image, or %NULL with @error set
 */
EsdShellSnapshotImage *
esd_shell_snapshot_capture_finish(GAsyncResult *result, GError **error)
{
	g_return_val_if_fail(g_task_is_valid(result, NULL), NULL);
	return g_task_propagate_pointer(G_TASK(result), error);
}
