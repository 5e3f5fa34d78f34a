/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <string.h>

#include "fs-harness.h"

/*
 * Requests with strings of a quarter megabyte and more. The daemon keeps
 * those out of the JSON tree: fs/writeFile reads its data where the frame
 * was received, every other method and member gets them put back. These
 * cases check that both ways give the same answers as small requests, over
 * WebSocket (including fragmented, masked frames read straight into the
 * message) and stdio.
 */

#define BIG_SIZE (1024 * 1024 + 1)

static GBytes *
pattern_bytes(gsize size, guint seed)
{
	guint8 *data = g_malloc(size);
	guint32 x = 2463534242u + seed;

	for (gsize i = 0; i < size; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		data[i] = (guint8)x;
	}
	return g_bytes_new_take(data, size);
}

static gchar *
write_params(Fx *fx, const gchar *rel, GBytes *data)
{
	g_autofree gchar *encoded =
	    g_base64_encode(g_bytes_get_data(data, NULL), g_bytes_get_size(data));
	return g_strdup_printf("{\"path\":\"file://%s\",\"dataBase64\":\"%s\"}",
			       fx_path(fx, rel),
			       encoded);
}

static void
assert_disk(Fx *fx, const gchar *rel, GBytes *want)
{
	g_autoptr(GBytes) got = disk_read(fx, rel);
	g_assert_true(g_bytes_equal(got, want));
}

/* no temporary file is left next to the target */
static void
assert_dir_entries(Fx *fx, guint want)
{
	g_autoptr(GDir) dir = g_dir_open(fx->dir, 0, NULL);
	guint n = 0;

	g_assert_nonnull(dir);
	while (g_dir_read_name(dir) != NULL)
		n++;
	g_assert_cmpuint(n, ==, want);
}

static void
test_write(Fx *fx)
{
	g_autoptr(GBytes) data = pattern_bytes(BIG_SIZE, 1);
	g_autofree gchar *params = write_params(fx, "file", data);

	conn_expect(fx, fx->conn, "fs/writeFile", params, "{}");
	assert_disk(fx, "file", data);
	/* and back */
	{
		JsonNode *result = conn_ok(fx, fx->conn, "fs/readFile", "{'path':@{file}}");
		g_autofree gchar *encoded =
		    g_base64_encode(g_bytes_get_data(data, NULL), g_bytes_get_size(data));
		g_assert_cmpstr(esd_test_json_get_string(result, "dataBase64"), ==, encoded);
	}
}

/* one message in odd-sized masked fragments, so that reads end mid-frame and mid-key */
static void
test_fragmented(Fx *fx)
{
	const gsize fragment = 100003;
	g_autoptr(GBytes) data = pattern_bytes(3 * BIG_SIZE, 2);
	g_autofree gchar *params = write_params(fx, "file", data);
	g_autofree gchar *request = NULL;
	g_autoptr(GByteArray) frames = g_byte_array_new();
	guint id = ++fx->conn->next_id;
	gsize len;

	request =
	    g_strdup_printf("{\"id\":%u,\"method\":\"fs/writeFile\",\"params\":%s}", id, params);
	len = strlen(request);
	for (gsize off = 0; off < len; off += fragment) {
		gsize n = MIN(fragment, len - off);
		g_autoptr(GBytes) frame = esd_test_ws_client_build_frame(off == 0 ? 1 : 0,
									 off + n == len,
									 request + off,
									 n);
		g_byte_array_append(frames,
				    g_bytes_get_data(frame, NULL),
				    (guint)g_bytes_get_size(frame));
		/* a ping between fragments is answered and does not disturb the message */
		if (off == 0) {
			g_autoptr(GBytes) ping = esd_test_ws_client_build_frame(9, TRUE, "p", 1);
			g_byte_array_append(frames,
					    g_bytes_get_data(ping, NULL),
					    (guint)g_bytes_get_size(ping));
		}
	}
	esd_test_ws_client_send_raw(fx->conn->client, frames->data, frames->len);
	{
		JsonNode *reply = conn_wait_reply(fx, fx->conn, id, WAIT_MS * 4);
		g_autofree gchar *want = g_strdup_printf("{\"id\":%u,\"result\":{}}", id);
		esd_assert_json_node_eq(reply, want);
	}
	assert_disk(fx, "file", data);
}

/* two large writes in flight at once, each to its own file; they may finish in either order */
static void
test_pipelined(Fx *fx)
{
	g_autoptr(GBytes) first = pattern_bytes(BIG_SIZE, 3);
	g_autoptr(GBytes) second = pattern_bytes(BIG_SIZE + 7, 4);
	g_autofree gchar *p1 = write_params(fx, "one", first);
	g_autofree gchar *p2 = write_params(fx, "two", second);
	guint id1 = conn_request(fx, fx->conn, "fs/writeFile", p1);
	guint id2 = conn_request(fx, fx->conn, "fs/writeFile", p2);
	gboolean seen[2] = {FALSE, FALSE};

	while (!seen[0] || !seen[1]) {
		JsonNode *reply = conn_receive(fx, fx->conn, WAIT_MS);
		JsonNode *id = esd_test_json_get(reply, "id");
		g_autofree gchar *want = NULL;
		gint64 n;

		g_assert_nonnull(id);
		n = json_node_get_int(id);
		g_assert_true(n == id1 || n == id2);
		want = g_strdup_printf("{\"id\":%" G_GINT64_FORMAT ",\"result\":{}}", n);
		esd_assert_json_node_eq(reply, want);
		seen[n == id1 ? 0 : 1] = TRUE;
	}
	assert_disk(fx, "one", first);
	assert_disk(fx, "two", second);
}

/* invalid base64 far into a large text: the old content stays, nothing is left behind */
static void
test_bad_base64(Fx *fx)
{
	g_autoptr(GBytes) data = pattern_bytes(BIG_SIZE, 5);
	g_autofree gchar *params = write_params(fx, "file", data);
	gchar *text = strstr(params, "\"dataBase64\":\"") + strlen("\"dataBase64\":\"");
	const gsize offset = 700001;

	disk_write(fx, "file", "old", -1);
	text[offset] = '!';
	conn_fail(fx,
		  fx->conn,
		  "fs/writeFile",
		  params,
		  -32600,
		  fx_text(fx,
			  "fs/writeFile requires valid base64 dataBase64: Invalid symbol 33, "
			  "offset 700001."));
	disk_assert_content(fx, "file", "old", -1);
	assert_dir_entries(fx, 1);
	/* a path error is reported ahead of the data's */
	{
		g_autofree gchar *relative = g_strdup(params);
		gchar *path = strstr(relative, "file://");
		memcpy(path, "rel/ab/", 7);
		conn_fail(fx,
			  fx->conn,
			  "fs/writeFile",
			  relative,
			  -32602,
			  "invalid URI: relative URL without a base");
	}
	/* an operation error too, when the data is valid */
	{
		g_autofree gchar *valid = write_params(fx, "missing/file", data);
		conn_fail(fx, fx->conn, "fs/writeFile", valid, -32004, ENOENT_TEXT);
	}
}

/* large strings in other members and methods read as sent */
static void
test_other_members(Fx *fx)
{
	g_autofree gchar *name = g_strnfill(300 * 1024 + 1, 'n');
	g_autofree gchar *meta = g_strdup_printf("{\"path\":\"file://%s/%s\"}", fx->dir, name);
	g_autofree gchar *write =
	    g_strdup_printf("{\"path\":\"file://%s/%s\",\"dataBase64\":\"QQ==\"}", fx->dir, name);
	g_autofree gchar *wrong =
	    g_strdup_printf("{\"path\":\"file://%s/x\",\"dataBase64\":\"%s\"}", fx->dir, name);
	g_autofree gchar *id = g_strdup_printf("{\"id\":\"%s\",\"method\":\"fs/getMetadata\","
					       "\"params\":{\"path\":\"file:///\"}}",
					       name);

	conn_fail(fx, fx->conn, "fs/getMetadata", meta, -32603, "Filename too long (os error 36)");
	conn_fail(fx, fx->conn, "fs/writeFile", write, -32603, "Filename too long (os error 36)");
	/* 300 KiB and one of 'n' is not base64: its length */
	conn_fail(fx,
		  fx->conn,
		  "fs/writeFile",
		  wrong,
		  -32600,
		  "fs/writeFile requires valid base64 dataBase64: *");
	assert_dir_entries(fx, 0);
	/* a large id comes back as sent */
	esd_test_peer_send_text(fx->conn->peer, id);
	{
		g_autoptr(GBytes) reply = esd_test_peer_receive(fx->conn->peer, WAIT_MS);
		g_autoptr(JsonNode) node = NULL;
		g_assert_nonnull(reply);
		node = esd_test_json_parse(g_bytes_get_data(reply, NULL));
		g_assert_cmpstr(esd_test_json_get_string(node, "id"), ==, name);
	}
}

static const CaseDef cases[] = {
    {"big/write", test_write, CASE_NONE},
    {"big/fragmented", test_fragmented, CASE_WS_ONLY},
    {"big/pipelined", test_pipelined, CASE_CONCURRENT},
    {"big/bad-base64", test_bad_base64, CASE_NONE},
    {"big/other-members", test_other_members, CASE_NONE},
};

int
main(int argc, char **argv)
{
	return fs_harness_main(argc, argv, cases, G_N_ELEMENTS(cases), "esd-test-fs-big");
}
