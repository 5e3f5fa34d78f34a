/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "esd-test-utils.h"

/*
 * The daemon's memory after a flood of malformed input: many connections
 * send thousands of messages that do not parse, are read in large blocks
 * and answered; once they have closed and the daemon has been idle for a
 * moment, its private memory (Private_Dirty of /proc/PID/smaps_rollup) is
 * back within twice what it was before. Before is measured after a first
 * session, which leaves what any daemon that has served a client keeps for
 * good (the classes of its objects and such). Memory is not timing: on a
 * loaded machine only the waits get longer.
 */

/* the daemon is built as this test is: under ASan freed memory stays in its quarantine */
#if defined(__SANITIZE_ADDRESS__)
#define ESD_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ESD_TEST_ASAN 1
#endif
#endif

#define FLOOD_CONNECTIONS 64
#define FLOOD_MESSAGES	  300 /* per connection */
#define FLOOD_SLICE	  (32 * 1024)
#define IDLE_WAIT_MS	  15000

static guint64
private_dirty_kb(GPid pid)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/smaps_rollup", (gint)pid);
	g_autofree gchar *text = NULL;
	g_autoptr(GError) error = NULL;
	const gchar *field;

	g_file_get_contents(path, &text, NULL, &error);
	g_assert_no_error(error);
	field = strstr(text, "\nPrivate_Dirty:");
	g_assert_nonnull(field);
	return g_ascii_strtoull(field + strlen("\nPrivate_Dirty:"), NULL, 10);
}

static guint
count_fds(GPid pid)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/fd", (gint)pid);
	g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);
	guint n = 0;

	g_assert_nonnull(dir);
	while (g_dir_read_name(dir) != NULL)
		n++;
	return n;
}

static void
append_frame(GByteArray *out, guint8 opcode, gboolean fin, const gchar *payload, gsize len)
{
	g_autoptr(GBytes) frame = esd_test_ws_client_build_frame(opcode, fin, payload, len);
	gsize size = 0;
	const guint8 *data = g_bytes_get_data(frame, &size);
	g_byte_array_append(out, data, (guint)size);
}

/* message @i of a flood: each is answered with one id:-1 error, none ends the connection */
static void
append_malformed(GByteArray *out, guint i)
{
	g_autofree gchar *text = NULL;

	switch (i % 8) {
	case 0:
		text = g_strdup_printf("{\"id\":%u,\"method\":", i);
		break;
	case 1:
		text = g_strdup_printf("{\"id\":{\"x\":%u},\"method\":42,\"params\":[]}", i);
		break;
	case 2:
		/* not UTF-8: only a binary frame may carry it */
		text = g_strdup_printf("{\"id\":%u,\"params\":\"\xff\xfe\"}", i);
		append_frame(out, 0x2, TRUE, text, strlen(text));
		return;
	case 3: {
		/* two frames: the message is whole only with the second */
		g_autofree gchar *rest = g_strdup_printf("%u,", i);
		append_frame(out, 0x1, FALSE, "[1,2,3", 6);
		append_frame(out, 0x0, TRUE, rest, strlen(rest));
		return;
	}
	case 4: {
		/* deeper than --max-json-depth */
		g_autofree gchar *open = g_strnfill(100, '[');
		g_autofree gchar *close = g_strnfill(100, ']');
		text =
		    g_strdup_printf("{\"id\":%u,\"method\":\"x\",\"params\":%s%s}", i, open, close);
		break;
	}
	case 5: {
		/* a string that never ends, 1 to 60 KiB, or 64 to 200 KiB, which is
		 * read straight into its message */
		gsize size = i % 48 == 5 ? 64 * 1024 + (i * 7919) % (136 * 1024)
					 : 1024 + (i * 7919) % (59 * 1024);
		g_autofree gchar *filler = g_strnfill(size, 'a');
		text = g_strdup_printf("{\"id\":%u,\"method\":\"x\",\"params\":\"%s", i, filler);
		break;
	}
	case 6:
		text = g_strdup_printf("{\"id\":%u,\"method\":\"environment/status\"}{}", i);
		break;
	default:
		text = g_strdup_printf("not json %u", i);
		break;
	}
	append_frame(out, 0x1, TRUE, text, strlen(text));
}

/*
 * sends @n malformed messages from every client, a slice of each in turn so
 * that the daemon has part of a message from all of them at once, then
 * reads their errors
 */
static void
flood(EsdTestWsClient **clients, guint n_clients, guint n)
{
	g_autoptr(GPtrArray) frames =
	    g_ptr_array_new_with_free_func((GDestroyNotify)g_byte_array_unref);
	gboolean more = TRUE;

	for (guint c = 0; c < n_clients; c++) {
		GByteArray *out = g_byte_array_new();
		for (guint i = 0; i < n; i++)
			append_malformed(out, c * 100003 + i);
		g_ptr_array_add(frames, out);
	}
	for (gsize offset = 0; more; offset += FLOOD_SLICE) {
		more = FALSE;
		for (guint c = 0; c < n_clients; c++) {
			GByteArray *out = g_ptr_array_index(frames, c);
			if (offset >= out->len)
				continue;
			esd_test_ws_client_send_raw(clients[c],
						    out->data + offset,
						    MIN(FLOOD_SLICE, out->len - offset));
			more = TRUE;
		}
	}
	for (guint c = 0; c < n_clients; c++) {
		for (guint i = 0; i < n; i++) {
			g_autoptr(JsonNode) reply =
			    esd_test_peer_receive_json(ESD_TEST_PEER(clients[c]));
			g_assert_cmpint(esd_test_json_get_int(reply, "id"), ==, -1);
		}
	}
}

/* the daemon has closed every connection and read nothing for a while */
static guint64
idle_private_dirty_kb(EsdTestDaemon *daemon, guint fds, guint64 limit_kb)
{
	GPid pid = esd_test_daemon_get_pid(daemon);
	gint64 deadline = g_get_monotonic_time() + IDLE_WAIT_MS * 1000;
	guint64 kb;

	ESD_WAIT_UNTIL(count_fds(pid) <= fds, IDLE_WAIT_MS);
	/* the heap is trimmed a second after the last read; poll until then */
	do {
		esd_test_iterate(250);
		kb = private_dirty_kb(pid);
	} while (kb > limit_kb && g_get_monotonic_time() < deadline);
	return kb;
}

static void
test_flood_memory(void)
{
	g_autoptr(EsdTestDaemon) daemon = NULL;
	g_autoptr(GPtrArray) clients = g_ptr_array_new_with_free_func(g_object_unref);
	GPid pid;
	guint fds;
	guint64 started_kb;
	guint64 before_kb;
	guint64 peak_kb;
	guint64 after_kb;

#ifdef ESD_TEST_ASAN
	g_test_skip("AddressSanitizer keeps freed memory in its quarantine");
	return;
#endif
	daemon = esd_test_daemon_new_ws(NULL);
	pid = esd_test_daemon_get_pid(daemon);
	fds = count_fds(pid);
	started_kb = private_dirty_kb(pid);

	/* a first session, then the idle daemon */
	{
		g_autoptr(EsdTestWsClient) first =
		    esd_test_ws_client_new(esd_test_daemon_get_url(daemon));
		g_autofree gchar *session = esd_test_peer_handshake(ESD_TEST_PEER(first));
		flood(&first, 1, 16);
		esd_test_ws_client_close(first);
	}
	ESD_WAIT_UNTIL(count_fds(pid) <= fds, IDLE_WAIT_MS);
	esd_test_iterate(2000);
	before_kb = private_dirty_kb(pid);

	for (guint c = 0; c < FLOOD_CONNECTIONS; c++) {
		EsdTestWsClient *client = esd_test_ws_client_new(esd_test_daemon_get_url(daemon));
		g_autofree gchar *session = esd_test_peer_handshake(ESD_TEST_PEER(client));
		g_ptr_array_add(clients, client);
	}
	flood((EsdTestWsClient **)clients->pdata, clients->len, FLOOD_MESSAGES);
	peak_kb = private_dirty_kb(pid);
	/* the daemon still serves */
	esd_test_peer_assert_alive(ESD_TEST_PEER(g_ptr_array_index(clients, 0)));
	for (guint c = 0; c < clients->len; c++)
		esd_test_ws_client_close(g_ptr_array_index(clients, c));
	after_kb = idle_private_dirty_kb(daemon, fds, 2 * before_kb);

	g_test_message("Private_Dirty: started %" G_GUINT64_FORMAT " kB, idle after a first "
		       "session %" G_GUINT64_FORMAT
		       " kB, after %u x %u malformed messages %" G_GUINT64_FORMAT
		       " kB, closed and idle %" G_GUINT64_FORMAT " kB",
		       started_kb,
		       before_kb,
		       (guint)FLOOD_CONNECTIONS,
		       (guint)FLOOD_MESSAGES,
		       peak_kb,
		       after_kb);
	g_assert_cmpuint(after_kb, <=, 2 * before_kb);
	g_assert_cmpuint(esd_test_daemon_get_warning_count(daemon), ==, 0);
	esd_test_daemon_send_signal(daemon, SIGTERM);
	esd_test_daemon_assert_exit_code(daemon, 0, ESD_TEST_TIMEOUT_MS);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add_func("/integration/memory/flood", test_flood_memory);
	return g_test_run();
}
