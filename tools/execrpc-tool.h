/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc.h>
#include <glib/gi18n.h>

G_BEGIN_DECLS

/* exit codes besides a command's own */
#define EXECRPC_EXIT_FAILURE	  1
#define EXECRPC_EXIT_USAGE	  2
#define EXECRPC_EXIT_CANNOT_RUN	  126
#define EXECRPC_EXIT_NOT_FOUND	  127
#define EXECRPC_EXIT_DISCONNECTED 255

/* the state of one invocation */
typedef struct {
	ErpcEnvironmentManager *manager;
	ErpcClient *client;
	gboolean verbose;
	gboolean stdout_tty;
	gboolean stderr_tty;
} ExecrpcTool;

/* blocking on the async API: iterate the main context until a result came */
void
execrpc_tool_result_cb(GObject *source, GAsyncResult *res, gpointer user_data);
GAsyncResult *
execrpc_tool_wait(GAsyncResult **slot);

gboolean
execrpc_tool_connect(ExecrpcTool *tool);
void
execrpc_tool_print_error(const gchar *context, const GError *error);
gint
execrpc_tool_usage_error(GOptionContext *context, const gchar *message);

/* subcommands: argv[0] is the subcommand's name */
gint
execrpc_tool_run(ExecrpcTool *tool, gint argc, gchar **argv);
gint
execrpc_tool_fs(ExecrpcTool *tool, gint argc, gchar **argv);

/* a progress bar on a terminal; does nothing when not enabled */
typedef struct {
	gboolean enabled;
	gint fd;
	guint64 total;
	guint64 done;
	gint64 last_draw;
	gint64 started;
} ExecrpcProgress;

void
execrpc_progress_init(ExecrpcProgress *progress, gboolean enabled, gint fd, guint64 total);
void
execrpc_progress_update(ExecrpcProgress *progress, guint64 done);
void
execrpc_progress_finish(ExecrpcProgress *progress);

G_END_DECLS
