/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include "esd-np-notes.h"

/*
 * The queue the proxy's decisions take to the main context: notes posted
 * from other threads arrive in order, together, after the delay and not
 * before; a flush delivers at once; a full queue does not wait; nothing
 * wakes the main context once the queue is empty.
 */

typedef struct {
	GPtrArray *delivered; /* of GUINT_TO_POINTER(note number) */
	guint freed;
} Sink;

static Sink *sink;

static void
deliver(gpointer note, gpointer unused)
{
	g_ptr_array_add(sink->delivered, note);
}

static void
free_note(gpointer note)
{
	sink->freed++;
}

static void
sink_setup(void)
{
	sink = g_new0(Sink, 1);
	sink->delivered = g_ptr_array_new();
}

static void
sink_teardown(void)
{
	g_ptr_array_unref(sink->delivered);
	g_clear_pointer(&sink, g_free);
}

/* iterates @context until @n notes were delivered; FALSE after @timeout_ms */
static gboolean
wait_delivered(GMainContext *context, guint n, guint timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

	while (sink->delivered->len < n) {
		if (g_get_monotonic_time() > deadline)
			return FALSE;
		g_main_context_iteration(context, FALSE);
		g_usleep(200);
	}
	return TRUE;
}

typedef struct {
	EsdNpNotes *notes;
	guint first;
	guint count;
} Poster;

static gpointer
post_thread(gpointer data)
{
	Poster *poster = data;

	for (guint i = 0; i < poster->count; i++)
		esd_np_notes_post(poster->notes, GUINT_TO_POINTER(poster->first + i));
	return NULL;
}

static void
test_delay(void)
{
	g_autoptr(GMainContext) context = g_main_context_new();
	g_autoptr(GError) error = NULL;
	g_autoptr(EsdNpNotes) notes = NULL;
	Poster poster = {NULL, 1, 3};
	GThread *thread;
	gint64 posted;

	sink_setup();
	notes = esd_np_notes_new(context, deliver, free_note, &error);
	g_assert_no_error(error);
	poster.notes = notes;
	posted = g_get_monotonic_time();
	thread = g_thread_new("poster", post_thread, &poster);
	g_thread_join(thread);
	/* queued, not delivered: nothing is sent before the timer fires */
	g_main_context_iteration(context, FALSE);
	if (g_get_monotonic_time() - posted < 4000)
		g_assert_cmpuint(sink->delivered->len, ==, 0);
	g_assert_true(wait_delivered(context, 3, 5000));
	/* the timer fired once, after the delay, for all three */
	g_assert_cmpint(g_get_monotonic_time() - posted, >=, 5000);
	for (guint i = 0; i < 3; i++)
		g_assert_cmpuint(GPOINTER_TO_UINT(sink->delivered->pdata[i]), ==, i + 1);
	g_assert_cmpuint(sink->freed, ==, 3);
	/* the timer is disarmed: the main context has nothing to do */
	g_usleep(20000);
	g_assert_false(g_main_context_pending(context));
	g_clear_pointer(&notes, esd_np_notes_unref);
	sink_teardown();
}

static void
test_flush(void)
{
	g_autoptr(GMainContext) context = g_main_context_new();
	g_autoptr(GError) error = NULL;
	g_autoptr(EsdNpNotes) notes = esd_np_notes_new(context, deliver, free_note, &error);

	g_assert_no_error(error);
	sink_setup();
	esd_np_notes_post(notes, GUINT_TO_POINTER(1));
	esd_np_notes_post(notes, GUINT_TO_POINTER(2));
	esd_np_notes_flush(notes);
	g_assert_cmpuint(sink->delivered->len, ==, 2);
	g_assert_cmpuint(GPOINTER_TO_UINT(sink->delivered->pdata[1]), ==, 2);
	/* the timer armed for them finds the queue empty */
	g_usleep(10000);
	while (g_main_context_iteration(context, FALSE))
		;
	g_assert_cmpuint(sink->delivered->len, ==, 2);
	/* what is queued after a flush still goes */
	esd_np_notes_post(notes, GUINT_TO_POINTER(3));
	g_assert_true(wait_delivered(context, 3, 5000));
	g_assert_cmpuint(sink->freed, ==, 3);
	g_clear_pointer(&notes, esd_np_notes_unref);
	sink_teardown();
}

/* 256 queued notes fire the timer at once; four threads' notes each keep their order */
static void
test_full(void)
{
	g_autoptr(GMainContext) context = g_main_context_new();
	g_autoptr(GError) error = NULL;
	g_autoptr(EsdNpNotes) notes = esd_np_notes_new(context, deliver, free_note, &error);
	Poster posters[4];
	GThread *threads[4];
	guint last[4] = {0};
	gint64 posted;

	g_assert_no_error(error);
	sink_setup();
	posted = g_get_monotonic_time();
	for (guint t = 0; t < 4; t++) {
		posters[t] = (Poster){notes, t * 1000 + 1, 100};
		threads[t] = g_thread_new("poster", post_thread, &posters[t]);
	}
	for (guint t = 0; t < 4; t++)
		g_thread_join(threads[t]);
	/* the 256th note armed the timer to fire now: ready well before the delay is over */
	g_usleep(500);
	if (g_get_monotonic_time() - posted < 4000)
		g_assert_true(g_main_context_pending(context));
	g_assert_true(g_main_context_iteration(context, TRUE));
	g_assert_cmpuint(sink->delivered->len, ==, 400);
	for (guint i = 0; i < sink->delivered->len; i++) {
		guint note = GPOINTER_TO_UINT(sink->delivered->pdata[i]);
		guint t = note / 1000;
		g_assert_cmpuint(note, >, last[t]);
		last[t] = note;
	}
	g_clear_pointer(&notes, esd_np_notes_unref);
	g_assert_cmpuint(sink->freed, ==, 400);
	sink_teardown();
}

/* the last reference frees what is queued without delivering it */
static void
test_unref(void)
{
	g_autoptr(GMainContext) context = g_main_context_new();
	g_autoptr(GError) error = NULL;
	EsdNpNotes *notes = esd_np_notes_new(context, deliver, free_note, &error);

	g_assert_no_error(error);
	sink_setup();
	esd_np_notes_post(notes, GUINT_TO_POINTER(1));
	esd_np_notes_ref(notes);
	esd_np_notes_unref(notes);
	g_assert_cmpuint(sink->freed, ==, 0);
	esd_np_notes_unref(notes);
	g_assert_cmpuint(sink->delivered->len, ==, 0);
	g_assert_cmpuint(sink->freed, ==, 1);
	/* its timer source went with it */
	g_usleep(10000);
	g_assert_false(g_main_context_pending(context));
	sink_teardown();
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/network-proxy/notes/delay", test_delay);
	g_test_add_func("/network-proxy/notes/flush", test_flush);
	g_test_add_func("/network-proxy/notes/full", test_full);
	g_test_add_func("/network-proxy/notes/unref", test_unref);
	return g_test_run();
}
