/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <math.h>
#include <string.h>

#include "erpc-base64.h"
#include "erpc-json-writer.h"
#include "erpc-json.h"

static gchar *
test_write_one(void (*write)(ErpcJsonWriter *writer))
{
	g_autoptr(GString) out = g_string_new("prefix:");
	ErpcJsonWriter writer;

	erpc_json_writer_init(&writer, out);
	write(&writer);
	g_assert_true(erpc_json_writer_get_string(&writer) == out);
	g_assert_true(g_str_has_prefix(out->str, "prefix:"));
	return g_strdup(out->str + strlen("prefix:"));
}

static void
test_write_nested(ErpcJsonWriter *w)
{
	erpc_json_writer_begin_object(w);
	erpc_json_writer_member_string(w, "a", "x");
	erpc_json_writer_member(w, "list");
	erpc_json_writer_begin_array(w);
	erpc_json_writer_int(w, 1);
	erpc_json_writer_begin_object(w);
	erpc_json_writer_end_object(w);
	erpc_json_writer_begin_array(w);
	erpc_json_writer_end_array(w);
	erpc_json_writer_null(w);
	erpc_json_writer_begin_array(w);
	erpc_json_writer_boolean(w, TRUE);
	erpc_json_writer_boolean(w, FALSE);
	erpc_json_writer_end_array(w);
	erpc_json_writer_end_array(w);
	erpc_json_writer_member(w, "empty");
	erpc_json_writer_begin_object(w);
	erpc_json_writer_end_object(w);
	erpc_json_writer_member_boolean(w, "last", TRUE);
	erpc_json_writer_end_object(w);
}

/* commas between values and members at every depth, none after a name */
static void
test_json_writer_nested(void)
{
	g_autofree gchar *text = test_write_one(test_write_nested);
	g_autoptr(JsonNode) node = NULL;
	g_autoptr(GError) error = NULL;

	g_assert_cmpstr(text,
			==,
			"{\"a\":\"x\",\"list\":[1,{},[],null,[true,false]],\"empty\":{},"
			"\"last\":true}");
	node = erpc_json_parse(text, strlen(text), 1024, 8, &error);
	g_assert_no_error(error);
}

static void
test_write_numbers(ErpcJsonWriter *w)
{
	erpc_json_writer_begin_array(w);
	erpc_json_writer_int(w, 0);
	erpc_json_writer_int(w, -7);
	erpc_json_writer_int(w, G_MININT64);
	erpc_json_writer_int(w, G_MAXINT64);
	erpc_json_writer_uint(w, G_MAXUINT64);
	erpc_json_writer_uint(w, 10);
	erpc_json_writer_double(w, 0.5);
	erpc_json_writer_double(w, -1500.0);
	erpc_json_writer_double(w, 0.1);
	erpc_json_writer_double(w, INFINITY);
	erpc_json_writer_double(w, NAN);
	erpc_json_writer_end_array(w);
}

/* integers in full; doubles as the node writer writes them */
static void
test_json_writer_numbers(void)
{
	g_autofree gchar *text = test_write_one(test_write_numbers);
	const gdouble doubles[] = {0.5, -1500.0, 0.1, INFINITY, NAN};
	g_autoptr(GString) expected = g_string_new("[0,-7,-9223372036854775808,"
						   "9223372036854775807,18446744073709551615,10");

	for (guint i = 0; i < G_N_ELEMENTS(doubles); i++) {
		g_autoptr(JsonNode) node = json_node_new(JSON_NODE_VALUE);
		json_node_set_double(node, doubles[i]);
		g_string_append_c(expected, ',');
		erpc_json_append_node(expected, node);
	}
	g_string_append_c(expected, ']');
	g_assert_cmpstr(text, ==, expected->str);
	g_assert_true(g_str_has_suffix(text, ",null,null]"));
}

static const gchar *const test_writer_strings[] = {
    "plain",
    "",
    "quote \" backslash \\ slash / ",
    "\n\r\t\b\f\x01\x1f\x7f",
    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
    "nul " ERPC_JSON_NUL " in the middle" ERPC_JSON_NUL,
    "bad \xff utf-8 \xc3",
};

static void
test_write_strings(ErpcJsonWriter *w)
{
	erpc_json_writer_begin_object(w);
	for (guint i = 0; i < G_N_ELEMENTS(test_writer_strings); i++)
		erpc_json_writer_member_string(w, test_writer_strings[i], test_writer_strings[i]);
	erpc_json_writer_member_string(w, "none", NULL);
	erpc_json_writer_member(w, "cut");
	erpc_json_writer_string(w, "abcdef", 3);
	erpc_json_writer_end_object(w);
}

/* names and values escaped byte for byte as erpc_json_append_string() escapes them */
static void
test_json_writer_strings(void)
{
	g_autofree gchar *text = test_write_one(test_write_strings);
	g_autoptr(GString) expected = g_string_new("{");

	for (guint i = 0; i < G_N_ELEMENTS(test_writer_strings); i++) {
		if (i > 0)
			g_string_append_c(expected, ',');
		erpc_json_append_string(expected, test_writer_strings[i], -1);
		g_string_append_c(expected, ':');
		erpc_json_append_string(expected, test_writer_strings[i], -1);
	}
	g_string_append(expected, ",\"none\":null,\"cut\":\"abc\"}");
	g_assert_cmpstr(text, ==, expected->str);
	/* what the wire shows: \u0000, UTF-8 kept, "/" kept, U+FFFD for bad bytes */
	g_assert_nonnull(strstr(text, "\"nul \\u0000 in the middle\\u0000\""));
	g_assert_nonnull(strstr(text, "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""));
	g_assert_nonnull(strstr(text, "\"quote \\\" backslash \\\\ slash / \""));
	g_assert_nonnull(strstr(text, "\"\\n\\r\\t\\b\\f\\u0001\\u001f\x7f\""));
	g_assert_nonnull(strstr(text, "\"bad \xef\xbf\xbd utf-8 \xef\xbf\xbd\""));
}

static void
test_write_pieces(ErpcJsonWriter *w)
{
	const guint8 data[] = {0, 1, 2, 250, 251};
	g_autoptr(JsonNode) node = json_from_string("{\"k\":[1,\"v\"]}", NULL);
	GString *raw;

	erpc_json_writer_begin_object(w);
	erpc_json_writer_member(w, "b64");
	erpc_json_writer_base64(w, data, sizeof(data));
	erpc_json_writer_member(w, "uri");
	raw = erpc_json_writer_begin_string(w);
	g_string_append(raw, "file:///a%20b");
	erpc_json_writer_end_string(w);
	erpc_json_writer_member(w, "node");
	erpc_json_writer_node(w, node);
	erpc_json_writer_member(w, "nothing");
	erpc_json_writer_node(w, NULL);
	erpc_json_writer_member(w, "raw");
	erpc_json_writer_raw(w, "{\"x\":1}xyz", 7);
	erpc_json_writer_member_int(w, "i", -1);
	erpc_json_writer_member_uint(w, "u", 1);
	erpc_json_writer_end_object(w);
}

/* text written straight into the output: base64, raw strings, trees, serialized values */
static void
test_json_writer_pieces(void)
{
	g_autofree gchar *text = test_write_one(test_write_pieces);

	g_assert_cmpstr(
	    text,
	    ==,
	    "{\"b64\":\"AAEC+vs=\",\"uri\":\"file:///a%20b\",\"node\":{\"k\":[1,\"v\"]},"
	    "\"nothing\":null,\"raw\":{\"x\":1},\"i\":-1,\"u\":1}");
}

/* a top-level scalar, and two writers on one string one after the other */
static void
test_json_writer_scalar(void)
{
	g_autoptr(GString) out = g_string_new(NULL);
	ErpcJsonWriter writer;

	erpc_json_writer_init(&writer, out);
	erpc_json_writer_string(&writer, "a", -1);
	g_string_append_c(out, ' ');
	erpc_json_writer_init(&writer, out);
	erpc_json_writer_uint(&writer, 5);
	g_assert_cmpstr(out->str, ==, "\"a\" 5");
}

/* misuse is refused, not written: a member outside an object, an end without a begin */
static void
test_json_writer_misuse(void)
{
	if (g_test_subprocess()) {
		g_autoptr(GString) out = g_string_new(NULL);
		ErpcJsonWriter writer;

		erpc_json_writer_init(&writer, out);
		erpc_json_writer_member(&writer, "a");
		return;
	}
	g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_failed();
	g_test_trap_assert_stderr("*depth > 0*");
}

static void
test_json_writer_too_deep(void)
{
	g_autoptr(GString) out = g_string_new(NULL);
	ErpcJsonWriter writer;

	erpc_json_writer_init(&writer, out);
	for (guint i = 0; i < ERPC_JSON_WRITER_MAX_DEPTH; i++)
		erpc_json_writer_begin_array(&writer);
	g_test_expect_message("execrpc",
			      G_LOG_LEVEL_CRITICAL,
			      "*depth < ERPC_JSON_WRITER_MAX_DEPTH*");
	erpc_json_writer_begin_array(&writer);
	g_test_assert_expected_messages();
	g_assert_cmpuint(out->len, ==, ERPC_JSON_WRITER_MAX_DEPTH);
	for (guint i = 0; i < ERPC_JSON_WRITER_MAX_DEPTH; i++)
		erpc_json_writer_end_array(&writer);
	g_assert_cmpuint(out->len, ==, 2 * ERPC_JSON_WRITER_MAX_DEPTH);
}

/* erpc_json_append_string() as it was before the writer: the baseline of the timings */
static void
test_old_append_piece(GString *out, const gchar *str, gsize n)
{
	static const gchar hex[] = "0123456789abcdef";
	gsize start = 0;
	g_autofree gchar *valid = NULL;

	/* what we send is UTF-8 whatever we were given: bad sequences become U+FFFD */
	if (!g_utf8_validate_len(str, n, NULL)) {
		valid = g_utf8_make_valid(str, (gssize)n);
		str = valid;
		n = strlen(valid);
	}

	for (gsize i = 0; i < n; i++) {
		guchar c = (guchar)str[i];
		gchar esc[7];
		const gchar *rep;
		gsize rep_len = 2;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		switch (c) {
		case '"':
			rep = "\\\"";
			break;
		case '\\':
			rep = "\\\\";
			break;
		case '\n':
			rep = "\\n";
			break;
		case '\r':
			rep = "\\r";
			break;
		case '\t':
			rep = "\\t";
			break;
		case '\b':
			rep = "\\b";
			break;
		case '\f':
			rep = "\\f";
			break;
		default:
			esc[0] = '\\';
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 0xf];
			esc[6] = '\0';
			rep = esc;
			rep_len = 6;
			break;
		}
		g_string_append_len(out, str + start, (gssize)(i - start));
		g_string_append_len(out, rep, (gssize)rep_len);
		start = i + 1;
	}
	g_string_append_len(out, str + start, (gssize)(n - start));
}

static void
test_old_append_string(GString *out, const gchar *str, gssize len)
{
	gsize n = len < 0 ? strlen(str) : (gsize)len;
	const gchar *nul;

	g_string_append_c(out, '"');
	while ((nul = memmem(str, n, ERPC_JSON_NUL, 2)) != NULL) {
		test_old_append_piece(out, str, (gsize)(nul - str));
		g_string_append(out, "\\u0000");
		n -= (gsize)(nul - str) + 2;
		str = nul + 2;
	}
	test_old_append_piece(out, str, n);
	g_string_append_c(out, '"');
}

/*
 * The shapes of the hot paths, written by hand as the daemon wrote them
 * before the writer (with the string escaping of then) and with the writer: the same bytes, and
 * (with -m perf) the time each takes. A measurement, never a pass or fail on time.
 */
static const gchar *const test_stream_names[] = {"stdout", "stderr"};

static void
test_output_by_hand(GString *out, const gchar *id, guint64 seq, const guint8 *data, gsize len)
{
	g_string_append(out, "{\"method\":\"");
	g_string_append(out, "process/output");
	g_string_append(out, "\",\"params\":{\"processId\":");
	test_old_append_string(out, id, -1);
	g_string_append_printf(out,
			       ",\"seq\":%" G_GUINT64_FORMAT ",\"stream\":\"%s\",\"chunk\":\"",
			       seq,
			       test_stream_names[seq & 1]);
	erpc_base64_append(out, data, len);
	g_string_append(out, "\"}}");
}

static void
test_output_by_writer(GString *out, const gchar *id, guint64 seq, const guint8 *data, gsize len)
{
	ErpcJsonWriter w;

	erpc_json_writer_init(&w, out);
	erpc_json_writer_begin_object(&w);
	erpc_json_writer_member_string(&w, "method", "process/output");
	erpc_json_writer_member(&w, "params");
	erpc_json_writer_begin_object(&w);
	erpc_json_writer_member_string(&w, "processId", id);
	erpc_json_writer_member_uint(&w, "seq", seq);
	erpc_json_writer_member_string(&w, "stream", test_stream_names[seq & 1]);
	erpc_json_writer_member(&w, "chunk");
	erpc_json_writer_base64(&w, data, len);
	erpc_json_writer_end_object(&w);
	erpc_json_writer_end_object(&w);
}

static void
test_entry_by_hand(GString *out, gboolean first, const gchar *name, gboolean is_dir)
{
	g_string_append(out, first ? "{\"fileName\":" : ",{\"fileName\":");
	test_old_append_string(out, name, -1);
	g_string_append(out, is_dir ? ",\"isDirectory\":true" : ",\"isDirectory\":false");
	g_string_append(out, !is_dir ? ",\"isFile\":true}" : ",\"isFile\":false}");
}

static void
test_entry_by_writer(ErpcJsonWriter *w, const gchar *name, gboolean is_dir)
{
	erpc_json_writer_begin_object(w);
	erpc_json_writer_member_string(w, "fileName", name);
	erpc_json_writer_member_boolean(w, "isDirectory", is_dir);
	erpc_json_writer_member_boolean(w, "isFile", !is_dir);
	erpc_json_writer_end_object(w);
}

typedef struct {
	const gchar *name;
	gdouble by_hand;
	gdouble by_writer;
} TestTiming;

/* batches of each way, interleaved; the fastest batch counts, as the machine is shared */
#define TEST_BATCHES 10

static void
test_timing_add(TestTiming *t, guint pass, gdouble seconds)
{
	gdouble *best = pass == 0 ? &t->by_hand : &t->by_writer;
	if (*best == 0 || seconds < *best)
		*best = seconds;
}

static void
test_timing_report(const TestTiming *t)
{
	if (!g_test_perf())
		return;
	g_test_message("%-28s by hand %9.1f us  writer %9.1f us  (%+.1f%%)",
		       t->name,
		       t->by_hand * 1e6,
		       t->by_writer * 1e6,
		       (t->by_writer / t->by_hand - 1) * 100);
}

static void
test_json_writer_hot_output(void)
{
	guint rounds = g_test_perf() ? 2000 : 1;
	g_autofree guint8 *data = g_malloc(4096);
	g_autoptr(GString) a = g_string_sized_new(8192);
	g_autoptr(GString) b = g_string_sized_new(8192);
	TestTiming t = {"process/output 4 KiB"};
	g_autoptr(GTimer) timer = g_timer_new();

	for (guint i = 0; i < 4096; i++)
		data[i] = (guint8)(i * 7);
	test_output_by_hand(a, "proc-1", 42, data, 4096);
	test_output_by_writer(b, "proc-1", 42, data, 4096);
	g_assert_cmpstr(a->str, ==, b->str);
	for (guint k = 0; k < 2 * TEST_BATCHES; k++) {
		guint pass = k & 1;

		g_timer_start(timer);
		for (guint i = 0; i < rounds; i++) {
			g_string_truncate(a, 0);
			if (pass == 0)
				test_output_by_hand(a, "proc-1", i, data, 4096);
			else
				test_output_by_writer(a, "proc-1", i, data, 4096);
		}
		test_timing_add(&t, pass, g_timer_elapsed(timer, NULL) / rounds);
	}
	test_timing_report(&t);
}

static void
test_json_writer_hot_entries(void)
{
	guint rounds = g_test_perf() ? 20 : 1;
	g_autoptr(GString) a = g_string_sized_new(1 << 20);
	g_autoptr(GString) b = g_string_sized_new(1 << 20);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	TestTiming t = {"readDirectory 10k entries"};
	g_autoptr(GTimer) timer = g_timer_new();

	for (guint i = 0; i < 10000; i++)
		g_ptr_array_add(names, g_strdup_printf("entry-%05u.txt", i));
	for (guint k = 0; k < 2 * TEST_BATCHES; k++) {
		guint pass = k & 1;

		g_timer_start(timer);
		for (guint r = 0; r < rounds; r++) {
			GString *out = pass == 0 ? a : b;
			ErpcJsonWriter w;

			g_string_truncate(out, 0);
			if (pass == 0) {
				g_string_append(out, "{\"entries\":[");
				for (guint i = 0; i < names->len; i++)
					test_entry_by_hand(out,
							   i == 0,
							   names->pdata[i],
							   i % 3 == 0);
				g_string_append(out, "]}");
				continue;
			}
			erpc_json_writer_init(&w, out);
			erpc_json_writer_begin_object(&w);
			erpc_json_writer_member(&w, "entries");
			erpc_json_writer_begin_array(&w);
			for (guint i = 0; i < names->len; i++)
				test_entry_by_writer(&w, names->pdata[i], i % 3 == 0);
			erpc_json_writer_end_array(&w);
			erpc_json_writer_end_object(&w);
		}
		test_timing_add(&t, pass, g_timer_elapsed(timer, NULL) / rounds);
	}
	g_assert_cmpstr(a->str, ==, b->str);
	test_timing_report(&t);
}

static void
test_json_writer_hot_base64(void)
{
	gsize size = 16 * 1024 * 1024;
	guint rounds = g_test_perf() ? 2 : 1;
	g_autofree guint8 *data = g_malloc(size);
	g_autoptr(GString) a = g_string_sized_new(size / 3 * 4 + 64);
	g_autoptr(GString) b = g_string_sized_new(size / 3 * 4 + 64);
	TestTiming t = {"readFile 16 MiB"};
	g_autoptr(GTimer) timer = g_timer_new();

	for (gsize i = 0; i < size; i++)
		data[i] = (guint8)(i * 13 + (i >> 8));
	for (guint k = 0; k < 2 * TEST_BATCHES; k++) {
		guint pass = k & 1;

		g_timer_start(timer);
		for (guint r = 0; r < rounds; r++) {
			ErpcJsonWriter w;

			if (pass == 0) {
				g_string_truncate(a, 0);
				g_string_append(a, "{\"dataBase64\":\"");
				erpc_base64_append(a, data, size);
				g_string_append(a, "\"}");
				continue;
			}
			g_string_truncate(b, 0);
			erpc_json_writer_init(&w, b);
			erpc_json_writer_begin_object(&w);
			erpc_json_writer_member(&w, "dataBase64");
			erpc_json_writer_base64(&w, data, size);
			erpc_json_writer_end_object(&w);
		}
		test_timing_add(&t, pass, g_timer_elapsed(timer, NULL) / rounds);
	}
	g_assert_cmpstr(a->str, ==, b->str);
	test_timing_report(&t);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/execserverd/libexecrpc/json-writer/nested", test_json_writer_nested);
	g_test_add_func("/execserverd/libexecrpc/json-writer/numbers", test_json_writer_numbers);
	g_test_add_func("/execserverd/libexecrpc/json-writer/strings", test_json_writer_strings);
	g_test_add_func("/execserverd/libexecrpc/json-writer/pieces", test_json_writer_pieces);
	g_test_add_func("/execserverd/libexecrpc/json-writer/scalar", test_json_writer_scalar);
	g_test_add_func("/execserverd/libexecrpc/json-writer/misuse", test_json_writer_misuse);
	g_test_add_func("/execserverd/libexecrpc/json-writer/too-deep", test_json_writer_too_deep);
	g_test_add_func("/execserverd/libexecrpc/json-writer/hot/output",
			test_json_writer_hot_output);
	g_test_add_func("/execserverd/libexecrpc/json-writer/hot/entries",
			test_json_writer_hot_entries);
	g_test_add_func("/execserverd/libexecrpc/json-writer/hot/base64",
			test_json_writer_hot_base64);
	return g_test_run();
}
