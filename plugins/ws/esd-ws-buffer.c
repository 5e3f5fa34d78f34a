/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <stdlib.h> /* defines __GLIBC__ */
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "esd-ws-buffer.h"

/*
 * Buffers for received data. A message of tens of megabytes (a file
 * written in base64) costs as much in page faults and zeroing of fresh
 * memory as in everything else together, so the buffer of the last large
 * message is kept for the next one. It is handed to the request as GBytes
 * and comes back when the request is done, from whichever thread; a spare
 * unused for a while is freed so that an idle daemon gives the memory back.
 *
 * Many connections sending at once hold many messages at once, and the
 * objects made while handling them end up between them on the heap. glibc
 * hands back to the system only the free memory at the top of the heap, so
 * after such a burst most of its memory stayed resident in free chunks
 * between live ones (a flood of 200,000 malformed messages left 8 MiB free
 * and 1.2 MiB in use). Once the connections have read nothing for a second
 * after a burst, malloc_trim() gives the free pages of the whole heap back.
 *
 * The connections read into one buffer, lent to one at a time, which is
 * freed at the same point.
 */

#define ESD_WS_BUFFER_LARGE	   (64 * 1024)
#define ESD_WS_BUFFER_MAX_KEPT	   (256 * 1024 * 1024)
#define ESD_WS_BUFFER_IDLE_SECONDS 30
/* a burst: this much read since the last trim */
#define ESD_WS_BUFFER_BURST_BYTES (1024 * 1024)
#define ESD_WS_BUFFER_QUIET_MS	  1000

static GMutex esd_ws_buffer_lock;
static GByteArray *esd_ws_buffer_spare = NULL;
static gint64 esd_ws_buffer_spare_since = 0;
static guint esd_ws_buffer_trim_id = 0;
static gsize esd_ws_buffer_read_since_trim = 0;
static gint64 esd_ws_buffer_last_read = 0;
static guint esd_ws_buffer_quiet_id = 0;
static guint8 *esd_ws_buffer_read = NULL;
static gsize esd_ws_buffer_read_size = 0;
static gboolean esd_ws_buffer_read_lent = FALSE;

/* the heap's free pages back to the system */
static void
esd_ws_buffer_trim_heap(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

static gboolean
esd_ws_buffer_trim_cb(gpointer user_data)
{
	g_autoptr(GByteArray) stale = NULL;
	gboolean again;

	g_mutex_lock(&esd_ws_buffer_lock);
	if (esd_ws_buffer_spare != NULL && g_get_monotonic_time() - esd_ws_buffer_spare_since >=
					       ESD_WS_BUFFER_IDLE_SECONDS * G_USEC_PER_SEC)
		stale = g_steal_pointer(&esd_ws_buffer_spare);
	again = esd_ws_buffer_spare != NULL;
	if (!again)
		esd_ws_buffer_trim_id = 0;
	g_mutex_unlock(&esd_ws_buffer_lock);
	if (stale != NULL) {
		g_clear_pointer(&stale, g_byte_array_unref);
		esd_ws_buffer_trim_heap();
	}
	return again ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static void
esd_ws_buffer_release(gpointer data)
{
	GByteArray *array = data;
	g_autoptr(GByteArray) unwanted = NULL;

	g_mutex_lock(&esd_ws_buffer_lock);
	if (esd_ws_buffer_spare == NULL && array->len <= ESD_WS_BUFFER_MAX_KEPT) {
		g_byte_array_set_size(array, 0);
		esd_ws_buffer_spare = array;
		esd_ws_buffer_spare_since = g_get_monotonic_time();
		/* the default main context is the daemon's; attaching to it is thread-safe */
		if (esd_ws_buffer_trim_id == 0)
			esd_ws_buffer_trim_id = g_timeout_add_seconds(ESD_WS_BUFFER_IDLE_SECONDS,
								      esd_ws_buffer_trim_cb,
								      NULL);
	} else {
		unwanted = array;
	}
	g_mutex_unlock(&esd_ws_buffer_lock);
}

/**
 * esd_ws_buffer_take:
 * @first_frame_len: the payload length of the message's first frame
 *
 * Returns: (transfer full): an empty buffer for a message; the kept one
 *   when the message looks large
 */
GByteArray *
esd_ws_buffer_take(guint64 first_frame_len)
{
	GByteArray *array = NULL;

	if (first_frame_len >= ESD_WS_BUFFER_LARGE) {
		g_mutex_lock(&esd_ws_buffer_lock);
		array = g_steal_pointer(&esd_ws_buffer_spare);
		g_mutex_unlock(&esd_ws_buffer_lock);
	}
	return array != NULL ? array : g_byte_array_new();
}

/**
 * esd_ws_buffer_to_bytes:
 * @array: (transfer full): a complete message
 *
 * Returns: (transfer full): the message as bytes; a large buffer may be
 *   kept for a later message once they are freed
 */
GBytes *
esd_ws_buffer_to_bytes(GByteArray *array)
{
	if (array->len < ESD_WS_BUFFER_LARGE)
		return g_byte_array_free_to_bytes(array);
	return g_bytes_new_with_free_func(array->data, array->len, esd_ws_buffer_release, array);
}

static gboolean
esd_ws_buffer_quiet_cb(gpointer user_data)
{
	g_autofree guint8 *unused = NULL;

	g_mutex_lock(&esd_ws_buffer_lock);
	if (g_get_monotonic_time() - esd_ws_buffer_last_read <
	    ESD_WS_BUFFER_QUIET_MS * (G_USEC_PER_SEC / 1000)) {
		g_mutex_unlock(&esd_ws_buffer_lock);
		return G_SOURCE_CONTINUE;
	}
	esd_ws_buffer_read_since_trim = 0;
	esd_ws_buffer_quiet_id = 0;
	if (!esd_ws_buffer_read_lent) {
		unused = g_steal_pointer(&esd_ws_buffer_read);
		esd_ws_buffer_read_size = 0;
	}
	g_mutex_unlock(&esd_ws_buffer_lock);
	g_clear_pointer(&unused, g_free);
	esd_ws_buffer_trim_heap();
	return G_SOURCE_REMOVE;
}

/**
 * esd_ws_buffer_borrow:
 * @size: bytes needed
 *
 * Lends the read buffer shared by the connections until
 * esd_ws_buffer_give_back().
 *
 * Returns: (transfer none) (nullable): at least @size bytes, or %NULL while
 *   another connection has it
 */
guint8 *
esd_ws_buffer_borrow(gsize size)
{
	guint8 *buf = NULL;

	g_mutex_lock(&esd_ws_buffer_lock);
	if (!esd_ws_buffer_read_lent) {
		if (esd_ws_buffer_read_size < size) {
			g_free(esd_ws_buffer_read);
			esd_ws_buffer_read = g_malloc(size);
			esd_ws_buffer_read_size = size;
		}
		esd_ws_buffer_read_lent = TRUE;
		buf = esd_ws_buffer_read;
	}
	g_mutex_unlock(&esd_ws_buffer_lock);
	return buf;
}

/**
 * esd_ws_buffer_give_back:
 * @buf: what esd_ws_buffer_borrow() lent
 */
void
esd_ws_buffer_give_back(guint8 *buf)
{
	g_mutex_lock(&esd_ws_buffer_lock);
	if (buf == esd_ws_buffer_read)
		esd_ws_buffer_read_lent = FALSE;
	g_mutex_unlock(&esd_ws_buffer_lock);
}

/**
 * esd_ws_buffer_note_read:
 * @len: bytes a connection has just read
 *
 * Counts what the connections read; once a burst of reading has ended,
 * the heap's free memory is given back to the system.
 */
void
esd_ws_buffer_note_read(gsize len)
{
	g_mutex_lock(&esd_ws_buffer_lock);
	esd_ws_buffer_last_read = g_get_monotonic_time();
	esd_ws_buffer_read_since_trim += len;
	if (esd_ws_buffer_read_since_trim >= ESD_WS_BUFFER_BURST_BYTES &&
	    esd_ws_buffer_quiet_id == 0)
		esd_ws_buffer_quiet_id =
		    g_timeout_add(ESD_WS_BUFFER_QUIET_MS, esd_ws_buffer_quiet_cb, NULL);
	g_mutex_unlock(&esd_ws_buffer_lock);
}
