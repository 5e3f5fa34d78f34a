/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
/*
 * The libsoup floor of scripts/bench-http.py's small workload: N small GETs
 * to the loopback server on PORT, one after another over one keep-alive
 * connection, made by a bare SoupSession in this process (no exec-server,
 * no transport, no JSON), the way the http plugin makes them
 * (soup_session_send_async() and a read of the body on the default main
 * context). Prints the median and 90th percentile of the round trips and
 * the CPU per request, in microseconds, on stderr.
 *
 *   bench-http-soup PORT N
 */

#include <libsoup/soup.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

typedef struct {
	SoupSession *session;
	GMainLoop *loop;
	gchar *url;
	gint64 started;
	gdouble *latencies;
	guint n;
	guint done;
	guint8 buf[4096];
} Bench;

static void
bench_next(Bench *self);
static void
bench_read_cb(GObject *source, GAsyncResult *result, gpointer user_data);

/* the next block of the body, until its end */
static void
bench_read(Bench *self, GInputStream *body)
{
	g_input_stream_read_async(body,
				  self->buf,
				  sizeof self->buf,
				  G_PRIORITY_DEFAULT,
				  NULL,
				  bench_read_cb,
				  self);
}

static void
bench_read_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	Bench *self = user_data;
	g_autoptr(GError) error = NULL;
	gssize n = g_input_stream_read_finish(G_INPUT_STREAM(source), result, &error);

	if (n < 0) {
		fprintf(stderr, "read: %s\n", error->message);
		exit(1);
	}
	if (n > 0) {
		bench_read(self, G_INPUT_STREAM(source));
		return;
	}
	g_object_unref(source);
	self->latencies[self->done++] = (gdouble)(g_get_monotonic_time() - self->started);
	if (self->done == self->n)
		g_main_loop_quit(self->loop);
	else
		bench_next(self);
}

static void
bench_send_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	Bench *self = user_data;
	g_autoptr(GError) error = NULL;
	GInputStream *body = soup_session_send_finish(SOUP_SESSION(source), result, &error);

	if (body == NULL) {
		fprintf(stderr, "send: %s\n", error->message);
		exit(1);
	}
	bench_read(self, body);
}

static void
bench_next(Bench *self)
{
	g_autoptr(SoupMessage) msg = soup_message_new("GET", self->url);

	self->started = g_get_monotonic_time();
	soup_session_send_async(self->session, msg, G_PRIORITY_DEFAULT, NULL, bench_send_cb, self);
}

static int
bench_cmp(const void *a, const void *b)
{
	gdouble x = *(const gdouble *)a;
	gdouble y = *(const gdouble *)b;
	return x < y ? -1 : x > y;
}

static gdouble
bench_cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 + ru.ru_utime.tv_usec +
	       ru.ru_stime.tv_usec;
}

int
main(int argc, char **argv)
{
	Bench self = {0};
	gdouble cpu;

	if (argc != 3 || atoi(argv[1]) <= 0 || atoi(argv[2]) <= 0) {
		fprintf(stderr, "usage: bench-http-soup PORT N\n");
		return 2;
	}
	self.url = g_strdup_printf("http://127.0.0.1:%s/small", argv[1]);
	self.n = (guint)atoi(argv[2]);
	self.latencies = g_new0(gdouble, self.n);
	self.session = soup_session_new_with_options("proxy-resolver", NULL, NULL);
	self.loop = g_main_loop_new(NULL, FALSE);
	cpu = bench_cpu_us();
	bench_next(&self);
	g_main_loop_run(self.loop);
	cpu = bench_cpu_us() - cpu;
	qsort(self.latencies, self.n, sizeof self.latencies[0], bench_cmp);
	fprintf(stderr,
		"%.1f %.1f %.1f\n",
		self.latencies[self.n / 2],
		self.latencies[self.n * 9 / 10],
		cpu / self.n);
	return 0;
}
