/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "erpc-error.h"
#include "erpc-json.h"
#include "erpc-uri.h"

/*
 * file:// URIs from peers. The NUL rows carry the answers of the reference
 * (Codex exec-server 0.171.0) to the same URIs in fs/readFile.
 */

#define NUL ERPC_JSON_NUL

typedef struct {
	const gchar *name;
	const gchar *uri;
	const gchar *path;    /* the result, or NULL when refused */
	gint code;	      /* the wire code when refused */
	const gchar *message; /* when refused */
} UriCase;

static const UriCase uri_cases[] = {
    {"plain", "file:///tmp/a", "/tmp/a", 0, NULL},
    {"localhost", "file://localhost/tmp/a", "/tmp/a", 0, NULL},
    {"dot-segments", "file:///tmp/./a/../b/", "/tmp/b", 0, NULL},
    {"dot-segments-above-root", "file:///../a/../../..", "/", 0, NULL},
    {"dot-segments-last", "file:///a/b/..", "/a", 0, NULL},
    {"dot-segments-escaped", "file:///a/%2e%2E/b/%2e", "/b", 0, NULL},
    {"empty-segments", "file:///a//b///", "/a/b", 0, NULL},
    {"dots-in-names", "file:///a/.../..b/.c/", "/a/.../..b/.c", 0, NULL},
    {"root", "file:///", "/", 0, NULL},
    {"escapes", "file:///tmp/a%20b%2Fc", "/tmp/a b/c", 0, NULL},
    /* a malformed escape is kept as it is */
    {"escape-bad", "file:///tmp/%zz", "/tmp/%zz", 0, NULL},
    {"escape-short", "file:///tmp/a%0", "/tmp/a%0", 0, NULL},
    {"escape-percent", "file:///tmp/a%2500b", "/tmp/a%00b", 0, NULL},
    /* C0 controls and spaces around the URI are not part of it, NUL included */
    {"trim-newline", "file:///tmp/x\n", "/tmp/x", 0, NULL},
    {"trim-nul", NUL "file:///tmp/nulid/d/f" NUL, "/tmp/nulid/d/f", 0, NULL},
    {"trim-nul-slash", "file:///tmp/nulid/d/" NUL, "/tmp/nulid/d", 0, NULL},
    {"trim-controls",
     " \x01"
     "file:///a \x1f",
     "/a",
     0,
     NULL},
    {"trim-controls-nul-inside",
     " \x01"
     "file:///a" NUL "b \x1f",
     NULL,
     -32602,
     "'file:///a%00b' is invalid on 'linux'"},
    /* a NUL byte inside the path, escaped or not, in the reference's words */
    {"nul", "file:///tmp/a" NUL "b", NULL, -32602, "'file:///tmp/a%00b' is invalid on 'linux'"},
    {"nul-escaped", "file:///tmp/a%00b", NULL, -32602, "'file:///tmp/a%00b' is invalid on 'linux'"},
    {"nul-escaped-last",
     "file:///tmp/a%00",
     NULL,
     -32602,
     "'file:///tmp/a%00' is invalid on 'linux'"},
    {"nul-one-slash",
     "file:/tmp/a" NUL "b",
     NULL,
     -32602,
     "'file:///tmp/a%00b' is invalid on 'linux'"},
    {"nul-written-back",
     "FILE://localhost/tmp/../x/./a b" NUL "c",
     NULL,
     -32602,
     "'file:///x/a%20b%00c' is invalid on 'linux'"},
    {"nul-encoded-set",
     "file:///tmp/\xc3\xa9" NUL "\"<>`{}|^",
     NULL,
     -32602,
     "'file:///tmp/%C3%A9%00%22%3C%3E%60%7B%7D|^' is invalid on 'linux'"},
    {"nul-controls",
     "file:///tmp/a\x01"
     "b\x7f" NUL "x",
     NULL,
     -32602,
     "'file:///tmp/a%01b%7F%00x' is invalid on 'linux'"},
    {"nul-empty-segment",
     "file:///tmp//a" NUL "b",
     NULL,
     -32602,
     "'file:///tmp//a%00b' is invalid on 'linux'"},
    {"nul-dotdot-last",
     "file:///a/b" NUL "/c/..",
     NULL,
     -32602,
     "'file:///a/b%00/' is invalid on 'linux'"},
    {"nul-escaped-dots",
     "file:///a/b" NUL "/c/%2e%2E",
     NULL,
     -32602,
     "'file:///a/b%00/' is invalid on 'linux'"},
    {"nul-escapes-kept",
     "file:///a%41" NUL "%2F",
     NULL,
     -32602,
     "'file:///a%41%00%2F' is invalid on 'linux'"},
    /* a segment `..` removes takes its NUL with it */
    {"nul-removed", "file:///tmp/a" NUL "b/../c", "/tmp/c", 0, NULL},
    {"nul-escaped-removed", "file:///tmp/a%00b/../c", "/tmp/c", 0, NULL},
    {"nul-last-removed", "file:///tmp/a" NUL "/..", "/tmp", 0, NULL},
    {"nul-in-host",
     "file://ho" NUL "st/tmp",
     NULL,
     -32602,
     "invalid URI: invalid international domain name"},
    {"nul-in-scheme",
     "fi" NUL "le:///tmp",
     NULL,
     -32602,
     "invalid URI: relative URL without a base"},
    /* the rest, as before */
    {"host", "file://host/path", NULL, -32600, "'file://host/path' is invalid on 'linux'"},
    {"scheme", "http://x/y", NULL, -32602, "unsupported path URI scheme `http`"},
    {"relative", "file:relative", NULL, -32602, "invalid URI: file:relative is not absolute"},
    {"no-scheme", "/tmp", NULL, -32602, "invalid URI: relative URL without a base"},
};

static void
test_uri_to_path(gconstpointer user_data)
{
	const UriCase *tc = user_data;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *path = erpc_uri_to_path(tc->uri, &error);

	if (tc->path != NULL) {
		g_assert_no_error(error);
		g_assert_cmpstr(path, ==, tc->path);
		return;
	}
	g_assert_null(path);
	g_assert_nonnull(error);
	g_assert_cmpint(erpc_error_to_wire_code(error), ==, tc->code);
	g_assert_cmpstr(error->message, ==, tc->message);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	for (guint i = 0; i < G_N_ELEMENTS(uri_cases); i++) {
		g_autofree gchar *path =
		    g_strdup_printf("/execserverd/libexecrpc/uri/to-path/%s", uri_cases[i].name);
		g_test_add_data_func(path, &uri_cases[i], test_uri_to_path);
	}
	return g_test_run();
}
