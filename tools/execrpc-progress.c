/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "execrpc-tool.h"

/*
 * A one-line progress bar for large transfers, redrawn at most ten times a
 * second and erased when done. Only drawn on a terminal, and only for
 * transfers of a megabyte or more.
 */

#define EXECRPC_PROGRESS_MIN_BYTES (1024 * 1024)
#define EXECRPC_PROGRESS_WIDTH	   30
#define EXECRPC_PROGRESS_PERIOD_US (100 * 1000)

static void
execrpc_progress_write(ExecrpcProgress *progress, const gchar *text)
{
	gsize len = strlen(text);
	while (len > 0) {
		gssize n = write(progress->fd, text, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		text += n;
		len -= (gsize)n;
	}
}

void
execrpc_progress_init(ExecrpcProgress *progress, gboolean enabled, gint fd, guint64 total)
{
	progress->enabled = enabled && total >= EXECRPC_PROGRESS_MIN_BYTES;
	progress->fd = fd;
	progress->total = total;
	progress->done = 0;
	progress->last_draw = 0;
	progress->started = g_get_monotonic_time();
}

static void
execrpc_progress_draw(ExecrpcProgress *progress)
{
	guint percent = progress->total > 0 ? (guint)(progress->done * 100 / progress->total) : 100;
	guint filled = MIN(percent, 100) * EXECRPC_PROGRESS_WIDTH / 100;
	gdouble seconds = (gdouble)(g_get_monotonic_time() - progress->started) / G_USEC_PER_SEC;
	g_autofree gchar *done = g_format_size(progress->done);
	g_autofree gchar *total = g_format_size(progress->total);
	g_autofree gchar *rate =
	    g_format_size(seconds > 0 ? (guint64)((gdouble)progress->done / seconds) : 0);
	g_autoptr(GString) line = g_string_new("\r[");

	for (guint i = 0; i < EXECRPC_PROGRESS_WIDTH; i++)
		g_string_append_c(line, i < filled ? '#' : '-');
	/* TRANSLATORS: progress: percent, bytes done, total bytes, bytes per second */
	g_string_append_printf(line,
			       _("] %3u%% %s / %s, %s/s"),
			       MIN(percent, 100),
			       done,
			       total,
			       rate);
	g_string_append(line, "\033[K");
	execrpc_progress_write(progress, line->str);
}

void
execrpc_progress_update(ExecrpcProgress *progress, guint64 done)
{
	gint64 now = g_get_monotonic_time();

	progress->done = done;
	if (!progress->enabled || now - progress->last_draw < EXECRPC_PROGRESS_PERIOD_US)
		return;
	progress->last_draw = now;
	execrpc_progress_draw(progress);
}

void
execrpc_progress_finish(ExecrpcProgress *progress)
{
	if (!progress->enabled || progress->last_draw == 0)
		return;
	execrpc_progress_write(progress, "\r\033[K");
	progress->enabled = FALSE;
}
