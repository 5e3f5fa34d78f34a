/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <glib-unix.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include "execrpc-tool.h"

/*
 * execrpc run: start the command, stream its output to ours, exit with its
 * exit code. With --tty it runs on a pseudo-terminal and our terminal (if
 * stdin is one) goes raw, so Ctrl-C travels as a byte to the remote
 * terminal. Otherwise Ctrl-C sends process/signal interrupt, and a second
 * one process/terminate. The protocol cannot close a process's stdin, so
 * stdin is only forwarded to --tty commands (EOF becomes Ctrl-D).
 */

typedef struct {
	ExecrpcTool *tool;
	ErpcClientProcess *process;
	gboolean tty;
	gboolean raw;
	struct termios saved;
	GQueue writes; /* GBytes for the process's stdin, in order */
	gboolean writing;
	guint interrupts;
	guint stdin_id;
	gboolean closed;
	gboolean lost;
} ExecrpcRun;

static void
execrpc_run_write_all(gint fd, const guint8 *data, gsize len)
{
	while (len > 0) {
		gssize n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return; /* a closed pipe: keep going, the exit code matters more */
		data += n;
		len -= (gsize)n;
	}
}

static void
execrpc_run_output_cb(ErpcClientProcess *process,
		      const gchar *stream,
		      GBytes *data,
		      ExecrpcRun *run)
{
	gsize len = 0;
	const guint8 *bytes = g_bytes_get_data(data, &len);
	execrpc_run_write_all(g_strcmp0(stream, "stderr") == 0 ? STDERR_FILENO : STDOUT_FILENO,
			      bytes,
			      len);
}

static void
execrpc_run_closed_cb(ErpcClientProcess *process, ExecrpcRun *run)
{
	run->closed = TRUE;
}

static void
execrpc_run_state_cb(ErpcClient *client,
		     ErpcClientState old_state,
		     ErpcClientState new_state,
		     ExecrpcRun *run)
{
	if (new_state == ERPC_CLIENT_STATE_DISCONNECTED)
		run->lost = TRUE;
	else if (new_state == ERPC_CLIENT_STATE_RECOVERING && run->tool->verbose)
		g_printerr("execrpc: %s\n", _("connection lost, recovering…"));
}

static void
execrpc_run_pump(ExecrpcRun *run);

static void
execrpc_run_write_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	ExecrpcRun *run = user_data;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *status = erpc_client_process_write_finish(run->process, res, &error);

	run->writing = FALSE;
	if (status == NULL)
		g_debug("process/write: %s", error->message);
	execrpc_run_pump(run);
}

/* one write at a time keeps the bytes in order whatever the server's concurrency */
static void
execrpc_run_pump(ExecrpcRun *run)
{
	g_autoptr(GBytes) data = NULL;

	if (run->writing || run->closed || run->lost)
		return;
	data = g_queue_pop_head(&run->writes);
	if (data == NULL)
		return;
	run->writing = TRUE;
	erpc_client_process_write_async(run->process, data, NULL, execrpc_run_write_cb, run);
}

static gboolean
execrpc_run_stdin_cb(gint fd, GIOCondition condition, gpointer user_data)
{
	ExecrpcRun *run = user_data;
	guint8 buf[16384];
	gssize n = read(fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return G_SOURCE_CONTINUE;
	if (n <= 0) {
		/* end of input: what a terminal sends for it */
		g_queue_push_tail(&run->writes, g_bytes_new_static("\004", 1));
		execrpc_run_pump(run);
		run->stdin_id = 0;
		return G_SOURCE_REMOVE;
	}
	g_queue_push_tail(&run->writes, g_bytes_new(buf, (gsize)n));
	execrpc_run_pump(run);
	return G_SOURCE_CONTINUE;
}

static void
execrpc_run_signal_done_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	ExecrpcRun *run = user_data;
	g_autoptr(GError) error = NULL;

	if (!erpc_client_process_interrupt_finish(run->process, res, &error))
		g_debug("process/signal: %s", error->message);
}

static void
execrpc_run_terminate_done_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	ExecrpcRun *run = user_data;
	g_autoptr(GError) error = NULL;

	if (!erpc_client_process_terminate_finish(run->process, res, NULL, &error))
		g_debug("process/terminate: %s", error->message);
}

static gboolean
execrpc_run_sigint_cb(gpointer user_data)
{
	ExecrpcRun *run = user_data;

	if (run->interrupts++ == 0)
		erpc_client_process_interrupt_async(run->process,
						    NULL,
						    execrpc_run_signal_done_cb,
						    run);
	else
		erpc_client_process_terminate_async(run->process,
						    NULL,
						    execrpc_run_terminate_done_cb,
						    run);
	return G_SOURCE_CONTINUE;
}

static gboolean
execrpc_run_sigterm_cb(gpointer user_data)
{
	ExecrpcRun *run = user_data;
	erpc_client_process_terminate_async(run->process, NULL, execrpc_run_terminate_done_cb, run);
	return G_SOURCE_CONTINUE;
}

static void
execrpc_run_raw(ExecrpcRun *run)
{
	struct termios raw;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &run->saved) != 0)
		return;
	raw = run->saved;
	cfmakeraw(&raw);
	if (tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) == 0)
		run->raw = TRUE;
}

static void
execrpc_run_restore(ExecrpcRun *run)
{
	if (run->raw)
		tcsetattr(STDIN_FILENO, TCSADRAIN, &run->saved);
	run->raw = FALSE;
}

static gint
execrpc_run_start(ExecrpcRun *run, const gchar *command)
{
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	GAsyncResult *slot = NULL;

	erpc_client_process_start_async(run->process, NULL, execrpc_tool_result_cb, &slot);
	res = execrpc_tool_wait(&slot);
	if (erpc_client_process_start_finish(run->process, res, &error))
		return EXIT_SUCCESS;
	execrpc_tool_print_error(command, error);
	if (g_error_matches(error, ERPC_ERROR, ERPC_ERROR_NOT_FOUND))
		return EXECRPC_EXIT_NOT_FOUND;
	if (error->domain == ERPC_CLIENT_ERROR ||
	    g_error_matches(error, ERPC_ERROR, ERPC_ERROR_TIMED_OUT))
		return EXECRPC_EXIT_DISCONNECTED;
	return EXECRPC_EXIT_CANNOT_RUN;
}

static ErpcClientProcess *
execrpc_run_new_process(ExecrpcTool *tool,
			gchar **command,
			const gchar *cwd,
			gchar **env,
			gboolean tty)
{
	g_autofree gchar *id = g_strdup_printf("execrpc-%d-%08x", (gint)getpid(), g_random_int());
	g_autoptr(GPtrArray) envp = g_ptr_array_new_with_free_func(g_free);
	ErpcClientProcess *process;

	process = erpc_client_process_new(tool->client, id, (const gchar *const *)command);
	if (tty && g_getenv("TERM") != NULL)
		g_ptr_array_add(envp, g_strdup_printf("TERM=%s", g_getenv("TERM")));
	for (guint i = 0; env != NULL && env[i] != NULL; i++)
		g_ptr_array_add(envp, g_strdup(env[i]));
	g_ptr_array_add(envp, NULL);
	erpc_client_process_set_env(process, (const gchar *const *)envp->pdata);
	erpc_client_process_set_inherit_env(process, "core");
	erpc_client_process_set_cwd(process, cwd);
	erpc_client_process_set_tty(process, tty);
	return process;
}

static gint
execrpc_run_loop(ExecrpcRun *run)
{
	gint exit_code;

	if (run->tty) {
		execrpc_run_raw(run);
		run->stdin_id =
		    g_unix_fd_add(STDIN_FILENO, G_IO_IN | G_IO_HUP, execrpc_run_stdin_cb, run);
	}
	while (!run->closed && !run->lost)
		g_main_context_iteration(NULL, TRUE);
	execrpc_run_restore(run);
	g_clear_handle_id(&run->stdin_id, g_source_remove);
	if (!run->closed) {
		g_printerr("execrpc: %s\n", _("the connection to the environment was lost"));
		return EXECRPC_EXIT_DISCONNECTED;
	}
	exit_code = erpc_client_process_get_exit_code(run->process);
	return exit_code >= 0 && exit_code <= 255 ? exit_code : EXECRPC_EXIT_DISCONNECTED;
}

gint
execrpc_tool_run(ExecrpcTool *tool, gint argc, gchar **argv)
{
	g_autoptr(GOptionContext) context = g_option_context_new(_("[--tty] -- COMMAND [ARG…]"));
	g_autoptr(GError) error = NULL;
	g_autofree gchar *cwd = NULL;
	g_auto(GStrv) env = NULL;
	g_auto(GStrv) command = NULL;
	ExecrpcRun run = {0};
	guint sigint_id;
	guint sigterm_id;
	guint sighup_id;
	gint rc;
	const GOptionEntry entries[] = {
	    {"tty",
	     't',
	     0,
	     G_OPTION_ARG_NONE,
	     &run.tty,
	     N_("Run on a pseudo-terminal and forward the keyboard"),
	     NULL},
	    {"cwd",
	     'C',
	     0,
	     G_OPTION_ARG_FILENAME,
	     &cwd,
	     N_("The working directory (default: the server's)"),
	     "DIR"},
	    {"env",
	     'e',
	     0,
	     G_OPTION_ARG_STRING_ARRAY,
	     &env,
	     N_("Set a variable for the command (repeatable)"),
	     "NAME=VALUE"},
	    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &command, NULL, NULL},
	    {NULL},
	};

	g_option_context_add_main_entries(context, entries, GETTEXT_PACKAGE);
	/* the command's own options are not ours */
	g_option_context_set_strict_posix(context, TRUE);
	if (!g_option_context_parse(context, &argc, &argv, &error))
		return execrpc_tool_usage_error(context, error->message);
	if (command == NULL || command[0] == NULL)
		return execrpc_tool_usage_error(context, _("no command given"));
	if (cwd != NULL && !g_path_is_absolute(cwd))
		return execrpc_tool_usage_error(context, _("--cwd needs an absolute path"));
	for (guint i = 0; env != NULL && env[i] != NULL; i++) {
		if (strchr(env[i], '=') == NULL || env[i][0] == '=')
			return execrpc_tool_usage_error(context, _("--env needs NAME=VALUE"));
	}
	if (!execrpc_tool_connect(tool))
		return EXECRPC_EXIT_DISCONNECTED;

	run.tool = tool;
	g_queue_init(&run.writes);
	run.process = execrpc_run_new_process(tool, command, cwd, env, run.tty);
	g_signal_connect(run.process, "output", G_CALLBACK(execrpc_run_output_cb), &run);
	g_signal_connect(run.process, "closed", G_CALLBACK(execrpc_run_closed_cb), &run);
	g_signal_connect(tool->client, "state-changed", G_CALLBACK(execrpc_run_state_cb), &run);
	/* from now on Ctrl-C is for the command: its output may come before the start answer */
	sigint_id = g_unix_signal_add(SIGINT, execrpc_run_sigint_cb, &run);
	sigterm_id = g_unix_signal_add(SIGTERM, execrpc_run_sigterm_cb, &run);
	sighup_id = g_unix_signal_add(SIGHUP, execrpc_run_sigterm_cb, &run);
	rc = execrpc_run_start(&run, command[0]);
	if (rc == EXIT_SUCCESS)
		rc = execrpc_run_loop(&run);
	g_source_remove(sigint_id);
	g_source_remove(sigterm_id);
	g_source_remove(sighup_id);
	/* requests still waiting complete now, while @run exists */
	erpc_client_close(tool->client);
	g_signal_handlers_disconnect_by_data(tool->client, &run);
	g_signal_handlers_disconnect_by_data(run.process, &run);
	g_queue_clear_full(&run.writes, (GDestroyNotify)g_bytes_unref);
	g_clear_object(&run.process);
	return rc;
}
