/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-harness.h"

/*
 * File handles (fs/open, fs/readBlock, fs/writeBlock, fs/close) and
 * missing-path watches (fs/watchMissing, fs/missingChanged) of the fs-local
 * plugin against the real daemon, over WebSocket and stdio, written from
 * PROTOCOL.md §5.2, §6.3, §10 and §11 and the transcripts "fs/open, ...",
 * "fs/watchMissing and fs/missingChanged" and B.13. Both are per-connection
 * state, so the WebSocket variants also check that a second connection
 * cannot see them and that they go away with their connection.
 *
 * The harness is the one of test-fs.c (see there): every case runs in a
 * child process with its own daemon and scratch directory, and templates
 * write `'` for `"`, `@{rel}` for the quoted file:// URI of scratch path
 * `rel` and `%{rel}` for its native path.
 */

/* how long a test waits to be sure that no notification comes */
#define QUIET_MS  400
#define MAX_BLOCK 1048576

/* harness: fs-harness.h */

/* the first connection's shortcuts */

static void
fx_expect(Fx *fx, const gchar *method, const gchar *params, const gchar *expected)
{
	conn_expect(fx, fx->conn, method, params, expected);
}

static void
fx_fail(Fx *fx, const gchar *method, const gchar *params, gint64 code, const gchar *message)
{
	conn_fail(fx, fx->conn, method, params, code, message);
}

static gint
compare_strings(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const gchar *const *)a, *(const gchar *const *)b);
}

/* the names in directory @rel, sorted and joined with "," */
static const gchar *
disk_list(Fx *fx, const gchar *rel)
{
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GDir) dir = g_dir_open(fx_path(fx, rel), 0, NULL);
	const gchar *name;

	g_assert_nonnull(dir);
	while ((name = g_dir_read_name(dir)) != NULL)
		g_ptr_array_add(names, g_strdup(name));
	g_ptr_array_sort(names, compare_strings);
	g_ptr_array_add(names, NULL);
	return fx_keep(fx, g_strjoinv(",", (gchar **)names->pdata));
}

/* fixture */

/* connections and notifications */

/* iterates the main context for @ms so that messages keep arriving */
static void
wait_ms(guint ms)
{
	gint64 until = g_get_monotonic_time() + (gint64)ms * 1000;
	while (g_get_monotonic_time() < until)
		esd_test_iterate(MIN(ms, 20));
}

/* one more WebSocket connection to the daemon, handshaken */
static Conn *
fx_connect(Fx *fx, const gchar *resume_session_id)
{
	g_autoptr(EsdTestWsClient) client =
	    esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
	Conn *conn = conn_new(ESD_TEST_PEER(client), client);

	g_ptr_array_add(fx->extra_conns, conn);
	conn_initialize(fx, conn, resume_session_id);
	return conn;
}

static gchar *
notification_text(guint64 watch_id)
{
	return g_strdup_printf(
	    "{\"method\":\"fs/missingChanged\",\"params\":{\"watchId\":%" G_GUINT64_FORMAT "}}",
	    watch_id);
}

/* waits for the one fs/missingChanged of @watch_id, after @what happened */
static void
conn_wait_changed(Fx *fx, Conn *conn, guint64 watch_id, const gchar *what)
{
	gint64 deadline = g_get_monotonic_time() + WAIT_MS * 1000;
	g_autofree gchar *want = notification_text(watch_id);
	g_autoptr(JsonNode) want_node = esd_test_json_parse(want);
	JsonNode *msg;

	while (g_queue_is_empty(&conn->notifications)) {
		if (g_get_monotonic_time() >= deadline)
			g_error("no fs/missingChanged for watch %" G_GUINT64_FORMAT
				" within %d ms after %s",
				watch_id,
				WAIT_MS,
				what);
		wait_ms(20);
		conn_sync(fx, conn);
	}
	msg = g_queue_pop_head(&conn->notifications);
	if (!esd_test_json_equal(msg, want_node)) {
		g_autofree gchar *got = esd_test_json_to_string(msg);
		g_error("after %s:\n  got:      %s\n  expected: %s", what, got, want);
	}
}

/* nothing arrives for a while */
static void
conn_assert_quiet(Fx *fx, Conn *conn, const gchar *what)
{
	wait_ms(QUIET_MS);
	conn_sync(fx, conn);
	if (!g_queue_is_empty(&conn->notifications)) {
		g_autofree gchar *got =
		    esd_test_json_to_string(g_queue_peek_head(&conn->notifications));
		g_error("after %s, unexpected: %s", what, got);
	}
}

static void
fx_wait_changed(Fx *fx, guint64 watch_id, const gchar *what)
{
	conn_wait_changed(fx, fx->conn, watch_id, what);
}

static void
fx_assert_quiet(Fx *fx, const gchar *what)
{
	conn_assert_quiet(fx, fx->conn, what);
}

static void
conn_watch(Fx *fx,
	   Conn *conn,
	   guint64 watch_id,
	   const gchar *missing,
	   const gchar *present,
	   gboolean watching)
{
	g_autofree gchar *params =
	    g_strdup_printf("{'watchId':%" G_GUINT64_FORMAT ",'missing':[%s]%s%s}",
			    watch_id,
			    missing,
			    present != NULL ? ",'present':" : "",
			    present != NULL ? present : "");
	conn_expect(fx,
		    conn,
		    "fs/watchMissing",
		    params,
		    watching ? "{'watching':true}" : "{'watching':false}");
}

static void
fx_watch(Fx *fx, guint64 watch_id, const gchar *missing, const gchar *present, gboolean watching)
{
	conn_watch(fx, fx->conn, watch_id, missing, present, watching);
}

static gchar *
b64(const gchar *data, gsize len)
{
	return g_base64_encode((const guchar *)data, len);
}

static void
fill_pattern(guint8 *data, gsize len, guint seed)
{
	guint32 x = 2463534242u + seed;

	for (gsize i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		data[i] = (guint8)x;
	}
}

/* fs/readBlock of @len bytes at @offset, which must be @data with @eof */
static void
conn_expect_block(Fx *fx,
		  Conn *conn,
		  const gchar *handle,
		  guint64 offset,
		  guint64 len,
		  const guint8 *data,
		  gsize data_len,
		  gboolean eof)
{
	g_autofree gchar *params = g_strdup_printf("{'handleId':'%s','offset':%" G_GUINT64_FORMAT
						   ",'len':%" G_GUINT64_FORMAT "}",
						   handle,
						   offset,
						   len);
	g_autofree gchar *chunk = b64((const gchar *)data, data_len);
	g_autofree gchar *expected =
	    g_strdup_printf("{'chunk':'%s','eof':%s}", chunk, eof ? "true" : "false");
	conn_expect(fx, conn, "fs/readBlock", params, expected);
}

static void
fx_expect_block(Fx *fx,
		const gchar *handle,
		guint64 offset,
		guint64 len,
		const gchar *text,
		gboolean eof)
{
	conn_expect_block(fx,
			  fx->conn,
			  handle,
			  offset,
			  len,
			  (const guint8 *)text,
			  strlen(text),
			  eof);
}

static void
conn_write_block(Fx *fx,
		 Conn *conn,
		 const gchar *handle,
		 guint64 offset,
		 const gchar *data,
		 gsize len)
{
	g_autofree gchar *chunk = b64(data, len);
	g_autofree gchar *params =
	    g_strdup_printf("{'handleId':'%s','offset':%" G_GUINT64_FORMAT ",'chunk':'%s'}",
			    handle,
			    offset,
			    chunk);
	conn_expect(fx, conn, "fs/writeBlock", params, "{}");
}

static void
fx_write_block(Fx *fx, const gchar *handle, guint64 offset, const gchar *text)
{
	conn_write_block(fx, fx->conn, handle, offset, text, strlen(text));
}

static void
conn_open(Fx *fx, Conn *conn, const gchar *handle, const gchar *rel, const gchar *mode)
{
	g_autofree gchar *params = g_strdup_printf("{'handleId':'%s','path':@{%s}%s%s%s}",
						   handle,
						   rel,
						   mode != NULL ? ",'mode':'" : "",
						   mode != NULL ? mode : "",
						   mode != NULL ? "'" : "");
	g_autofree gchar *expected = g_strdup_printf("{'handleId':'%s'}", handle);
	conn_expect(fx, conn, "fs/open", params, expected);
}

static void
fx_open(Fx *fx, const gchar *handle, const gchar *rel, const gchar *mode)
{
	conn_open(fx, fx->conn, handle, rel, mode);
}

static void
fx_close(Fx *fx, const gchar *handle)
{
	g_autofree gchar *params = g_strdup_printf("{'handleId':'%s'}", handle);
	fx_expect(fx, "fs/close", params, "{}");
}

/* 1. fs/open + fs/readBlock: transcript ids 31-38 */

static void
test_handle_read(Fx *fx)
{
	const gchar *too_short = "file read block length must be between 1 and 1048576";

	disk_mkdir(fx, "dir1");
	disk_write(fx, "dir1/a.txt", "hello\n", -1);
	fx_expect(fx, "fs/open", "{'handleId':'h1','path':@{dir1/a.txt}}", "{'handleId':'h1'}");
	fx_fail(fx,
		"fs/open",
		"{'handleId':'h1','path':@{dir1/a.txt}}",
		-32600,
		"file handle `h1` already exists");
	fx_expect_block(fx, "h1", 0, 3, "hel", FALSE);
	fx_expect_block(fx, "h1", 3, 100, "lo\n", TRUE);
	/*
	 * eof means the block came back shorter than asked: a block ending exactly
	 * at the end is not eof yet (upstream: `eof: bytes_read < len`)
	 */
	fx_expect_block(fx, "h1", 0, 6, "hello\n", FALSE);
	fx_expect_block(fx, "h1", 0, 7, "hello\n", TRUE);
	fx_expect_block(fx, "h1", 0, 5, "hello", FALSE);
	fx_expect_block(fx, "h1", 5, 1, "\n", FALSE);
	fx_expect_block(fx, "h1", 5, 2, "\n", TRUE);
	/* at and past the end: empty, eof */
	fx_expect_block(fx, "h1", 6, 1, "", TRUE);
	fx_expect_block(fx, "h1", 100, 10, "", TRUE);
	fx_expect_block(fx, "h1", 0, MAX_BLOCK, "hello\n", TRUE);
	fx_fail(fx, "fs/readBlock", "{'handleId':'h1','offset':0,'len':0}", -32600, too_short);
	fx_fail(fx,
		"fs/readBlock",
		"{'handleId':'h1','offset':0,'len':1048577}",
		-32600,
		too_short);
	fx_fail(fx, "fs/readBlock", "{'handleId':'h1','offset':-1,'len':1}", -32602, "invalid *");
	fx_fail(fx, "fs/readBlock", "{'handleId':'h1','len':1}", -32602, "missing field `offset`");
	fx_fail(fx, "fs/readBlock", "{'handleId':'h1','offset':0}", -32602, "missing field `len`");
	/* the handle still works after errors */
	fx_expect_block(fx, "h1", 1, 2, "el", FALSE);
	fx_expect(fx, "fs/close", "{'handleId':'h1'}", "{}");
	fx_fail(fx,
		"fs/readBlock",
		"{'handleId':'h1','offset':0,'len':1}",
		-32004,
		"unknown file handle `h1`");
	/* close is idempotent */
	fx_expect(fx, "fs/close", "{'handleId':'h1'}", "{}");
	fx_expect(fx, "fs/close", "{'handleId':'never-opened'}", "{}");
	fx_fail(fx, "fs/close", "{}", -32602, "missing field `handleId`");
	/* the id is free again; mode read explicitly; symlinks are followed */
	disk_symlink(fx, "dir1/a.txt", "link");
	fx_open(fx, "h1", "link", "read");
	fx_expect_block(fx, "h1", 0, 5, "hello", FALSE);
	/* the handle keeps reading the file it opened */
	disk_write(fx, "dir1/a.txt", "HELLO\n", -1);
	fx_expect_block(fx, "h1", 0, 5, "HELLO", FALSE);
	/* even once it has no name any more */
	g_assert_cmpint(g_unlink(fx_path(fx, "dir1/a.txt")), ==, 0);
	fx_expect_block(fx, "h1", 1, 10, "ELLO\n", TRUE);
}

/* several blocks of a file larger than one */
static void
test_handle_read_large(Fx *fx)
{
	const gsize size = 2 * MAX_BLOCK + MAX_BLOCK / 2 + 7;
	g_autofree guint8 *data = g_malloc(size);

	fill_pattern(data, size, 1);
	disk_write(fx, "large", (const gchar *)data, (gssize)size);
	fx_open(fx, "r", "large", NULL);
	conn_expect_block(fx, fx->conn, "r", 0, MAX_BLOCK, data, MAX_BLOCK, FALSE);
	conn_expect_block(fx,
			  fx->conn,
			  "r",
			  MAX_BLOCK,
			  MAX_BLOCK,
			  data + MAX_BLOCK,
			  MAX_BLOCK,
			  FALSE);
	conn_expect_block(fx,
			  fx->conn,
			  "r",
			  2 * MAX_BLOCK,
			  MAX_BLOCK,
			  data + 2 * MAX_BLOCK,
			  size - 2 * MAX_BLOCK,
			  TRUE);
	conn_expect_block(fx, fx->conn, "r", 12345, 1000, data + 12345, 1000, FALSE);
	conn_expect_block(fx, fx->conn, "r", size - 3, 3, data + size - 3, 3, FALSE);
	conn_expect_block(fx, fx->conn, "r", size - 3, 4, data + size - 3, 3, TRUE);
	conn_expect_block(fx, fx->conn, "r", size, MAX_BLOCK, data, 0, TRUE);
	fx_close(fx, "r");
}

/* 1. fs/open mode replace + fs/writeBlock */

static void
test_handle_replace(Fx *fx)
{
	/* transcript ids 41-45: a hole past the end reads as zeros */
	fx_expect(fx,
		  "fs/open",
		  "{'handleId':'w','path':@{out.bin},'mode':'replace'}",
		  "{'handleId':'w'}");
	fx_expect(fx, "fs/writeBlock", "{'handleId':'w','offset':0,'chunk':'aGVsbG8='}", "{}");
	fx_expect(fx, "fs/writeBlock", "{'handleId':'w','offset':8,'chunk':'IQ=='}", "{}");
	fx_expect(fx, "fs/close", "{'handleId':'w'}", "{}");
	disk_assert_content(fx, "out.bin", "hello\0\0\0!", 9);
	/* an existing file is truncated */
	disk_write(fx, "old", "0123456789abcdef", -1);
	fx_open(fx, "w", "old", "replace");
	fx_write_block(fx, "w", 0, "ab");
	fx_close(fx, "w");
	disk_assert_content(fx, "old", "ab", -1);
	disk_write(fx, "old", "0123456789abcdef", -1);
	fx_open(fx, "w", "old", "replace");
	fx_close(fx, "w");
	disk_assert_content(fx, "old", "", 0);
	/* blocks in any order, overlapping */
	fx_open(fx, "w", "order", "replace");
	fx_write_block(fx, "w", 4, "efgh");
	fx_write_block(fx, "w", 0, "abcd");
	fx_write_block(fx, "w", 1, "BC");
	fx_close(fx, "w");
	disk_assert_content(fx, "order", "aBCdefgh", -1);
	/* and it reads back through a read handle */
	fx_open(fx, "r", "order", NULL);
	fx_expect_block(fx, "r", 0, 100, "aBCdefgh", TRUE);
	fx_close(fx, "r");
	g_assert_cmpstr(disk_list(fx, ""), ==, "old,order,out.bin");
}

static void
test_handle_write_limits(Fx *fx)
{
	const gchar *bad_len = "file write block length must be between 1 and 1048576";
	g_autofree gchar *max_data = g_malloc(MAX_BLOCK + 1);
	g_autofree gchar *over = NULL;
	g_autofree gchar *over_params = NULL;

	fill_pattern((guint8 *)max_data, MAX_BLOCK + 1, 2);
	fx_open(fx, "w", "out", "replace");
	conn_write_block(fx, fx->conn, "w", 0, max_data, MAX_BLOCK);
	fx_fail(fx, "fs/writeBlock", "{'handleId':'w','offset':0,'chunk':''}", -32600, bad_len);
	over = b64(max_data, MAX_BLOCK + 1);
	over_params = g_strdup_printf("{'handleId':'w','offset':0,'chunk':'%s'}", over);
	fx_fail(fx, "fs/writeBlock", over_params, -32600, bad_len);
	fx_fail(fx,
		"fs/writeBlock",
		"{'handleId':'w','offset':9223372036854775807,'chunk':'YQ=='}",
		-32600,
		"file write range exceeds the signed 64-bit file offset limit");
	fx_fail(fx,
		"fs/writeBlock",
		"{'handleId':'w','offset':9223372036854775808,'chunk':'YQ=='}",
		-32600,
		"file write range exceeds the signed 64-bit file offset limit");
	fx_fail(fx, "fs/writeBlock", "{'handleId':'w','offset':0,'chunk':'YQ='}", -32602, "*");
	fx_fail(fx,
		"fs/writeBlock",
		"{'handleId':'w','offset':0}",
		-32602,
		"missing field `chunk`");
	fx_fail(fx,
		"fs/writeBlock",
		"{'handleId':'w','offset':-5,'chunk':'YQ=='}",
		-32602,
		"invalid *");
	fx_close(fx, "w");
	disk_assert_content(fx, "out", max_data, MAX_BLOCK);
	g_assert_cmpstr(disk_list(fx, ""), ==, "out");
}

static void
test_handle_errors(Fx *fx)
{
	/* 16 × "é" is 32 bytes, 17 × is 34 bytes but only 17 characters */
	g_autoptr(GString) id32 = g_string_new(NULL);
	g_autoptr(GString) id34 = g_string_new(NULL);
	g_autofree gchar *params = NULL;

	for (guint i = 0; i < 16; i++)
		g_string_append(id32, "\xc3\xa9");
	g_string_append(id34, id32->str);
	g_string_append(id34, "\xc3\xa9");
	disk_mkdir(fx, "d");
	disk_write(fx, "f", "file", -1);
	disk_fifo(fx, "fifo");
	fx_open(fx, "r", "f", NULL);
	fx_open(fx, "w", "out", "replace");
	fx_fail(fx,
		"fs/writeBlock",
		"{'handleId':'r','offset':0,'chunk':'YQ=='}",
		-32603,
		"Bad file descriptor*");
	fx_fail(fx,
		"fs/readBlock",
		"{'handleId':'w','offset':0,'len':1}",
		-32603,
		"Bad file descriptor*");
	fx_fail(fx,
		"fs/readBlock",
		"{'handleId':'nope','offset':0,'len':1}",
		-32004,
		"unknown file handle `nope`");
	fx_fail(fx,
		"fs/writeBlock",
		"{'handleId':'nope','offset':0,'chunk':'YQ=='}",
		-32004,
		"unknown file handle `nope`");
	/* a duplicate id does not touch the file it names */
	fx_fail(fx,
		"fs/open",
		"{'handleId':'r','path':@{f},'mode':'replace'}",
		-32600,
		"file handle `r` already exists");
	disk_assert_content(fx, "f", "file", -1);
	fx_fail(fx,
		"fs/open",
		"{'handleId':'w','path':@{new},'mode':'replace'}",
		-32600,
		"file handle `w` already exists");
	disk_assert_missing(fx, "new");
	fx_fail(fx,
		"fs/open",
		"{'handleId':'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx','path':@{f}}",
		-32600,
		"file handle ID must not exceed 32 bytes");
	fx_open(fx, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "f", NULL);
	params = g_strdup_printf("{'handleId':'%s','path':@{f}}", id34->str);
	fx_fail(fx, "fs/open", params, -32600, "file handle ID must not exceed 32 bytes");
	fx_open(fx, id32->str, "f", NULL);
	fx_expect_block(fx, id32->str, 0, 10, "file", TRUE);
	/* what cannot be opened */
	fx_fail(fx, "fs/open", "{'handleId':'x','path':@{d}}", -32600, "path `%{d}` is not a file");
	fx_fail(fx,
		"fs/open",
		"{'handleId':'x','path':@{fifo}}",
		-32600,
		"path `%{fifo}` is not a file");
	fx_fail(fx, "fs/open", "{'handleId':'x','path':@{missing}}", -32004, ENOENT_TEXT);
	fx_fail(fx,
		"fs/open",
		"{'handleId':'x','path':@{f/x}}",
		-32603,
		"Not a directory (os error 20)");
	fx_fail(fx,
		"fs/open",
		"{'handleId':'x','path':@{nodir/x},'mode':'replace'}",
		-32004,
		ENOENT_TEXT);
	fx_fail(fx,
		"fs/open",
		"{'handleId':'x','path':@{d},'mode':'replace'}",
		-32603,
		"Is a directory*");
	fx_fail(fx,
		"fs/open",
		"{'handleId':'x','path':@{f},'mode':'append'}",
		-32602,
		"unknown variant `append`*");
	fx_fail(fx, "fs/open", "{'path':@{f}}", -32602, "missing field `handleId`");
	fx_fail(fx, "fs/open", "{'handleId':'x'}", -32602, "missing field `path`");
	disk_assert_content(fx, "f", "file", -1);
	g_assert_cmpstr(disk_list(fx, "d"), ==, "");
	/* failed opens took no id */
	fx_open(fx, "x", "f", NULL);
	fx_close(fx, "x");
	fx_close(fx, "w");
	g_assert_cmpstr(disk_list(fx, ""), ==, "d,f,fifo,out");
}

/* at most 128 open handles per connection */
static void
test_handle_limit(Fx *fx)
{
	const gchar *limit = "at most 128 file handles may be open per connection";

	disk_write(fx, "f", "data", -1);
	for (guint i = 0; i < 128; i++) {
		g_autofree gchar *id = g_strdup_printf("h%u", i);
		fx_open(fx, id, "f", i % 2 == 0 ? NULL : "read");
	}
	fx_fail(fx, "fs/open", "{'handleId':'h128','path':@{f}}", -32600, limit);
	fx_fail(fx, "fs/open", "{'handleId':'h128','path':@{new},'mode':'replace'}", -32600, limit);
	disk_assert_missing(fx, "new");
	fx_expect_block(fx, "h127", 0, 10, "data", TRUE);
	fx_close(fx, "h5");
	fx_open(fx, "h128", "new", "replace");
	fx_fail(fx, "fs/open", "{'handleId':'h129','path':@{f}}", -32600, limit);
	/* closing an unknown handle frees nothing */
	fx_close(fx, "h5");
	fx_fail(fx, "fs/open", "{'handleId':'h129','path':@{f}}", -32600, limit);
	for (guint i = 0; i <= 128; i++) {
		g_autofree gchar *id = g_strdup_printf("h%u", i);
		fx_close(fx, id);
	}
	fx_open(fx, "again", "f", NULL);
	fx_close(fx, "again");
}

/* handles belong to their connection (ws: several connections) */
static void
test_handle_per_connection(Fx *fx)
{
	Conn *other = fx_connect(fx, NULL);

	disk_write(fx, "a", "from a", -1);
	disk_write(fx, "b", "from b", -1);
	conn_open(fx, fx->conn, "h", "a", NULL);
	conn_fail(fx,
		  other,
		  "fs/readBlock",
		  "{'handleId':'h','offset':0,'len':10}",
		  -32004,
		  "unknown file handle `h`");
	conn_fail(fx,
		  other,
		  "fs/writeBlock",
		  "{'handleId':'h','offset':0,'chunk':'YQ=='}",
		  -32004,
		  "unknown file handle `h`");
	/* closing it there does nothing here */
	conn_expect(fx, other, "fs/close", "{'handleId':'h'}", "{}");
	conn_open(fx, other, "h", "b", NULL);
	conn_expect_block(fx, fx->conn, "h", 0, 10, (const guint8 *)"from a", 6, TRUE);
	conn_expect_block(fx, other, "h", 0, 10, (const guint8 *)"from b", 6, TRUE);
	/* each connection has its own 128 */
	for (guint i = 0; i < 127; i++) {
		g_autofree gchar *id = g_strdup_printf("h%u", i);
		conn_open(fx, fx->conn, id, "a", NULL);
	}
	conn_fail(fx,
		  fx->conn,
		  "fs/open",
		  "{'handleId':'one-more','path':@{a}}",
		  -32600,
		  "at most 128 file handles may be open per connection");
	conn_open(fx, other, "one-more", "a", NULL);
}

/* handles go with their connection, even when the session is resumed */
static void
test_handle_disconnect(Fx *fx)
{
	Conn *resumed;
	gint64 deadline;
	const gchar *names;

	disk_write(fx, "a", "content", -1);
	fx_open(fx, "r", "a", NULL);
	fx_open(fx, "w", "out", "replace");
	fx_write_block(fx, "w", 0, "partial");
	esd_test_ws_client_abort(fx->conn->client);
	resumed = fx_connect(fx, fx->session_id);
	conn_fail(fx,
		  resumed,
		  "fs/readBlock",
		  "{'handleId':'r','offset':0,'len':1}",
		  -32004,
		  "unknown file handle `r`");
	conn_fail(fx,
		  resumed,
		  "fs/writeBlock",
		  "{'handleId':'w','offset':0,'chunk':'YQ=='}",
		  -32004,
		  "unknown file handle `w`");
	conn_open(fx, resumed, "r", "a", NULL);
	conn_open(fx, resumed, "w", "out2", "replace");
	conn_expect(fx, resumed, "fs/close", "{'handleId':'w'}", "{}");
	/* whatever became of out, nothing else is left behind */
	deadline = g_get_monotonic_time() + 2 * G_USEC_PER_SEC;
	do {
		wait_ms(20);
		names = disk_list(fx, "");
	} while (g_strcmp0(names, "a,out,out2") != 0 && g_strcmp0(names, "a,out2") != 0 &&
		 g_get_monotonic_time() < deadline);
	if (g_strcmp0(names, "a,out,out2") != 0 && g_strcmp0(names, "a,out2") != 0)
		g_error("the scratch directory holds %s after the connection dropped", names);
	disk_assert_content(fx, "a", "content", -1);
}

/* 1. fs/watchMissing: transcript ids 46-52, B.13 */

static void
test_watch_not_needed(Fx *fx)
{
	disk_mkdir(fx, "dir1");
	disk_write(fx, "f", "x", 1);
	fx_watch(fx, 1, "@{dir1}", NULL, FALSE);
	fx_watch(fx, 2, "", NULL, FALSE);
	fx_watch(fx, 3, "", "@{f}", FALSE);
	fx_watch(fx, 4, "@{dir1},@{f}", "@{f}", FALSE);
	fx_watch(fx, 5, "@{dir1}", "@{missing}", FALSE);
	g_assert_cmpint(g_unlink(fx_path(fx, "f")), ==, 0);
	g_assert_cmpint(g_rmdir(fx_path(fx, "dir1")), ==, 0);
	fx_assert_quiet(fx, "removing paths of watches that watch nothing");
}

static void
test_watch_fires(Fx *fx)
{
	int fd;

	fx_watch(fx, 2, "@{later.txt}", NULL, TRUE);
	fx_assert_quiet(fx, "creating nothing");
	fd = g_open(fx_path(fx, "later.txt"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	g_assert_cmpint(fd, >=, 0);
	g_close(fd, NULL);
	fx_wait_changed(fx, 2, "creating later.txt");
	/* one-shot */
	g_assert_cmpint(g_unlink(fx_path(fx, "later.txt")), ==, 0);
	disk_write(fx, "later.txt", "again", -1);
	fx_assert_quiet(fx, "creating later.txt again after the watch fired");
	/* a new watch works */
	fx_watch(fx, 3, "@{dir}", NULL, TRUE);
	disk_mkdir(fx, "dir");
	fx_wait_changed(fx, 3, "creating directory dir");
}

/* the daemon's own write fires it too; reply and notification may come in any order */
static void
test_watch_own_write(Fx *fx)
{
	fx_watch(fx, 2, "@{later.txt}", NULL, TRUE);
	fx_watch(fx, 1, "@{other.txt}", NULL, FALSE);
	fx_expect(fx, "fs/writeFile", "{'path':@{later.txt},'dataBase64':''}", "{}");
	fx_wait_changed(fx, 2, "fs/writeFile of later.txt");
	fx_expect(fx, "fs/writeFile", "{'path':@{other.txt},'dataBase64':''}", "{}");
	fx_assert_quiet(fx, "writing the path of an ignored watch");
	/* B.13 first block */
	fx_watch(fx, 5, "@{a}", NULL, TRUE);
	fx_watch(fx, 3, "@{b}", NULL, FALSE);
	fx_expect(fx, "fs/writeFile", "{'path':@{b},'dataBase64':''}", "{}");
	fx_expect(fx, "fs/writeFile", "{'path':@{a},'dataBase64':''}", "{}");
	fx_wait_changed(fx, 5, "fs/writeFile of a");
	fx_assert_quiet(fx, "watch 5 fired");
}

/* watchId is a generation: lower or equal is ignored, higher replaces */
static void
test_watch_generations(Fx *fx)
{
	fx_watch(fx, 5, "@{a}", NULL, TRUE);
	fx_watch(fx, 3, "@{b}", NULL, FALSE);
	disk_write(fx, "b", "", 0);
	fx_assert_quiet(fx, "creating b (watch 3 was ignored)");
	disk_write(fx, "a", "", 0);
	fx_wait_changed(fx, 5, "creating a");
	/* higher replaces */
	fx_watch(fx, 10, "@{c}", NULL, TRUE);
	fx_watch(fx, 11, "@{d}", NULL, TRUE);
	disk_write(fx, "c", "", 0);
	fx_assert_quiet(fx, "creating c (watch 10 was replaced)");
	disk_write(fx, "d", "", 0);
	fx_wait_changed(fx, 11, "creating d");
	/* one-shot, whichever path comes first */
	fx_watch(fx, 12, "@{e},@{f}", NULL, TRUE);
	disk_write(fx, "e", "", 0);
	fx_wait_changed(fx, 12, "creating e");
	disk_write(fx, "f", "", 0);
	fx_assert_quiet(fx, "creating f after watch 12 fired");
	/* equal is ignored too */
	fx_watch(fx, 30, "@{g}", NULL, TRUE);
	fx_watch(fx, 30, "@{h}", NULL, FALSE);
	disk_write(fx, "h", "", 0);
	fx_assert_quiet(fx, "creating h (the second watch 30 was ignored)");
	disk_write(fx, "g", "", 0);
	fx_wait_changed(fx, 30, "creating g");
	/* a higher id with nothing to watch still cancels the active watch */
	fx_watch(fx, 40, "@{i}", NULL, TRUE);
	fx_watch(fx, 41, "", NULL, FALSE);
	disk_write(fx, "i", "", 0);
	fx_assert_quiet(fx, "creating i (watch 40 was replaced by an empty watch 41)");
	fx_watch(fx, 50, "@{j}", NULL, TRUE);
	fx_watch(fx, 51, "@{a}", NULL, FALSE);
	disk_write(fx, "j", "", 0);
	fx_assert_quiet(fx, "creating j (watch 50 was replaced by watch 51 on a present path)");
}

/* large ids are u64 */
static void
test_watch_large_id(Fx *fx)
{
	fx_watch(fx, G_MAXINT64, "@{a}", NULL, TRUE);
	fx_watch(fx, 7, "@{b}", NULL, FALSE);
	disk_write(fx, "a", "", 0);
	fx_wait_changed(fx, G_MAXINT64, "creating a");
}

/* creating a missing ancestor fires (transcript: creating d fired d/e/f) */
static void
test_watch_ancestor(Fx *fx)
{
	fx_watch(fx, 1, "@{d/e/f}", NULL, TRUE);
	disk_mkdir(fx, "d");
	fx_wait_changed(fx, 1, "creating d of d/e/f");
	disk_mkdir(fx, "x");
	fx_watch(fx, 2, "@{x/y/z}", NULL, TRUE);
	disk_mkdir(fx, "x/y");
	fx_wait_changed(fx, 2, "creating x/y of x/y/z");
	fx_watch(fx, 3, "@{m/n/o}", NULL, TRUE);
	disk_mkdir(fx, "m/n/o");
	fx_wait_changed(fx, 3, "creating m/n/o at once");
	fx_assert_quiet(fx, "watch 3 fired");
	/* renamed into place */
	disk_write(fx, "tmp", "t", 1);
	fx_watch(fx, 4, "@{p},@{q/r}", NULL, TRUE);
	g_assert_cmpint(g_rename(fx_path(fx, "tmp"), fx_path(fx, "q")), ==, 0);
	fx_wait_changed(fx, 4, "renaming tmp to q (a file where the ancestor q of q/r goes)");
}

/* only the watched paths count: siblings, and changes inside `present`, stay quiet */
static void
test_watch_quiet(Fx *fx)
{
	disk_mkdir(fx, "pd");
	disk_write(fx, "pd/inner", "i", 1);
	fx_watch(fx, 1, "@{later},@{d/e/f}", "@{pd}", TRUE);
	disk_write(fx, "other", "", 0);
	disk_write(fx, "laterx", "", 0);
	disk_write(fx, "pd/new", "", 0);
	disk_write(fx, "pd/inner", "changed", -1);
	g_assert_cmpint(g_unlink(fx_path(fx, "pd/inner")), ==, 0);
	disk_mkdir(fx, "dd/e/f");
	disk_write(fx, "later.txt", "", 0);
	fx_assert_quiet(
	    fx,
	    "creating siblings of the missing paths and changing the present directory");
	disk_write(fx, "later", "", 0);
	fx_wait_changed(fx, 1, "creating later");
}

/* `present` going away fires */
static void
test_watch_present(Fx *fx)
{
	disk_write(fx, "p", "p", 1);
	disk_write(fx, "p2", "p", 1);
	disk_mkdir(fx, "pd");
	fx_watch(fx, 1, "@{missing}", "@{p}", TRUE);
	g_assert_cmpint(g_unlink(fx_path(fx, "p")), ==, 0);
	fx_wait_changed(fx, 1, "removing the present path p");
	fx_watch(fx, 2, "@{missing}", "@{p2}", TRUE);
	g_assert_cmpint(g_rename(fx_path(fx, "p2"), fx_path(fx, "p3")), ==, 0);
	fx_wait_changed(fx, 2, "renaming the present path p2 away");
	fx_watch(fx, 3, "@{missing}", "@{pd}", TRUE);
	fx_expect(fx, "fs/remove", "{'path':@{pd}}", "{}");
	fx_wait_changed(fx, 3, "fs/remove of the present directory pd");
	fx_assert_quiet(fx, "watch 3 fired");
}

static void
test_watch_errors(Fx *fx)
{
	const gchar *relative = "invalid URI: relative URL without a base";

	fx_watch(fx, 5, "@{a}", NULL, TRUE);
	fx_fail(fx, "fs/watchMissing", "{'watchId':9,'missing':['%{b}']}", -32602, relative);
	fx_fail(fx,
		"fs/watchMissing",
		"{'watchId':9,'missing':[@{b},'relative/x']}",
		-32602,
		relative);
	fx_fail(fx,
		"fs/watchMissing",
		"{'watchId':9,'missing':[@{b}],'present':'%{a}'}",
		-32602,
		relative);
	fx_fail(fx,
		"fs/watchMissing",
		"{'watchId':9,'missing':['http://x/y']}",
		-32602,
		"unsupported path URI scheme `http`");
	fx_fail(fx, "fs/watchMissing", "{'missing':[@{b}]}", -32602, "missing field `watchId`");
	fx_fail(fx, "fs/watchMissing", "{'watchId':9}", -32602, "missing field `missing`");
	fx_fail(fx, "fs/watchMissing", "{'watchId':9,'missing':@{b}}", -32602, "invalid type: *");
	fx_fail(fx, "fs/watchMissing", "{'watchId':-1,'missing':[@{b}]}", -32602, "invalid *");
	fx_fail(fx,
		"fs/watchMissing",
		"{'watchId':'9','missing':[@{b}]}",
		-32602,
		"invalid type: *");
	/* none of that touched watch 5 */
	disk_write(fx, "b", "", 0);
	fx_assert_quiet(fx, "creating b, which only invalid requests named");
	disk_write(fx, "a", "", 0);
	fx_wait_changed(fx, 5, "creating a after invalid fs/watchMissing requests");
}

/* watches belong to their connection (ws: several connections) */
static void
test_watch_per_connection(Fx *fx)
{
	Conn *other = fx_connect(fx, NULL);

	conn_watch(fx, fx->conn, 7, "@{x}", NULL, TRUE);
	/* the other connection's generations are its own */
	conn_watch(fx, other, 1, "@{y}", NULL, TRUE);
	conn_expect(fx, other, "fs/writeFile", "{'path':@{x},'dataBase64':''}", "{}");
	conn_wait_changed(fx, fx->conn, 7, "the other connection wrote x");
	conn_assert_quiet(fx, other, "writing x, watched by the first connection");
	disk_write(fx, "y", "", 0);
	conn_wait_changed(fx, other, 1, "creating y");
	conn_assert_quiet(fx, fx->conn, "creating y, watched by the other connection");
}

/* a watch goes with its connection, even when the session is resumed */
static void
test_watch_disconnect(Fx *fx)
{
	Conn *resumed;

	fx_watch(fx, 7, "@{x}", NULL, TRUE);
	esd_test_ws_client_close(fx->conn->client);
	resumed = fx_connect(fx, fx->session_id);
	disk_write(fx, "x", "", 0);
	conn_assert_quiet(fx, resumed, "creating x, watched by the closed connection");
	/* a new connection starts without an active watch */
	conn_watch(fx, resumed, 1, "@{z}", NULL, TRUE);
	disk_write(fx, "z", "", 0);
	conn_wait_changed(fx, resumed, 1, "creating z");
	/* and a dropped one leaves nothing behind either */
	conn_watch(fx, resumed, 2, "@{w}", NULL, TRUE);
	esd_test_ws_client_abort(resumed->client);
	disk_write(fx, "w", "", 0);
	{
		Conn *third = fx_connect(fx, fx->session_id);
		conn_assert_quiet(fx, third, "creating w, watched by the dropped connection");
	}
}

/* registration */

static const CaseDef cases[] = {
    {"handle/read", test_handle_read, CASE_NONE},
    {"handle/read-large", test_handle_read_large, CASE_NONE},
    {"handle/replace", test_handle_replace, CASE_NONE},
    {"handle/write-limits", test_handle_write_limits, CASE_NONE},
    {"handle/errors", test_handle_errors, CASE_NONE},
    {"handle/limit", test_handle_limit, CASE_NONE},
    {"handle/per-connection", test_handle_per_connection, CASE_WS_ONLY},
    {"handle/disconnect", test_handle_disconnect, CASE_WS_ONLY},
    {"watch/not-needed", test_watch_not_needed, CASE_NONE},
    {"watch/fires", test_watch_fires, CASE_NONE},
    {"watch/own-write", test_watch_own_write, CASE_NONE},
    {"watch/generations", test_watch_generations, CASE_NONE},
    {"watch/large-id", test_watch_large_id, CASE_NONE},
    {"watch/ancestor", test_watch_ancestor, CASE_NONE},
    {"watch/present", test_watch_present, CASE_NONE},
    {"watch/quiet", test_watch_quiet, CASE_NONE},
    {"watch/errors", test_watch_errors, CASE_NONE},
    {"watch/per-connection", test_watch_per_connection, CASE_WS_ONLY},
    {"watch/disconnect", test_watch_disconnect, CASE_WS_ONLY},
};

int
main(int argc, char **argv)
{
	return fs_harness_main(argc, argv, cases, G_N_ELEMENTS(cases), "esd-test-fs-watch");
}
