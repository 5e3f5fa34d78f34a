/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "esd-ws-buffer.h"

/*
 * Buffers for received messages. A message of tens of megabytes (a file
 * written in base64) costs as much in page faults and zeroing of fresh
 * memory as in everything else together, so the buffer of the last large
 * message is kept for the next one. It is handed to the request as GBytes
 * and comes back when the request is done, from whichever thread; a spare
 * unused for a while is freed so that an idle daemon gives the memory back.
 */

#define ESD_WS_BUFFER_LARGE	   (64 * 1024)
#define ESD_WS_BUFFER_MAX_KEPT	   (256 * 1024 * 1024)
#define ESD_WS_BUFFER_IDLE_SECONDS 30

static GMutex esd_ws_buffer_lock;
static GByteArray *esd_ws_buffer_spare = NULL;
static gint64 esd_ws_buffer_spare_since = 0;
static guint esd_ws_buffer_trim_id = 0;

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
