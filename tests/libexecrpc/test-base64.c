/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "erpc-base64.h"
#include "erpc-error.h"
#include "erpc-json.h"

/*
 * The strict decoder against GLib's encoder and an independent validity
 * rule. Run twice by meson: once as the machine allows (the vector loop on
 * AVX2 machines) and once with ERPC_BASE64_SCALAR set.
 */

static const gchar alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static guint8 *
random_bytes(GRand *rand, gsize len)
{
	guint8 *data = g_malloc(len + 1);
	for (gsize i = 0; i < len; i++)
		data[i] = (guint8)g_rand_int(rand);
	return data;
}

static void
test_base64_round_trip(void)
{
	g_autoptr(GRand) rand = g_rand_new_with_seed(7);

	/* every length up to a few vector blocks, then some large ones */
	for (gsize len = 0; len < 700; len++) {
		g_autofree guint8 *data = random_bytes(rand, len);
		g_autofree gchar *text = g_base64_encode(data, len);
		g_autoptr(GString) ours = g_string_new(NULL);
		g_autoptr(GError) error = NULL;
		g_autoptr(GBytes) bytes = NULL;

		erpc_base64_append(ours, data, len);
		g_assert_cmpstr(ours->str, ==, text);
		bytes = erpc_base64_decode(text, strlen(text), G_MAXSIZE, &error);
		g_assert_no_error(error);
		g_assert_cmpmem(g_bytes_get_data(bytes, NULL), g_bytes_get_size(bytes), data, len);
	}
	for (gsize len = 1000000; len < 1000003; len++) {
		g_autofree guint8 *data = random_bytes(rand, len);
		g_autofree gchar *text = g_base64_encode(data, len);
		g_autoptr(GString) ours = g_string_new(NULL);
		g_autoptr(GError) error = NULL;
		g_autoptr(GBytes) bytes = erpc_base64_decode(text, strlen(text), G_MAXSIZE, &error);
		g_assert_no_error(error);
		erpc_base64_append(ours, data, len);
		g_assert_cmpstr(ours->str, ==, text);
		g_assert_cmpmem(g_bytes_get_data(bytes, NULL), g_bytes_get_size(bytes), data, len);
	}
}

/* every byte value at positions in and around vector blocks */
static void
test_base64_every_symbol(void)
{
	g_autoptr(GRand) rand = g_rand_new_with_seed(11);
	g_autofree guint8 *data = random_bytes(rand, 300);
	g_autofree gchar *text = g_base64_encode(data, 300); /* 400 characters, no padding */
	const gsize positions[] = {0, 1, 5, 31, 32, 33, 63, 64, 100, 255, 256, 300, 367, 368, 399};

	g_assert_cmpuint(strlen(text), ==, 400);
	for (guint p = 0; p < G_N_ELEMENTS(positions); p++) {
		for (guint c = 0; c < 256; c++) {
			g_autofree gchar *copy = g_strdup(text);
			g_autoptr(GError) error = NULL;
			g_autoptr(GBytes) bytes = NULL;
			gsize pos = positions[p];
			gboolean valid = c != 0 && strchr(alphabet, (gint)c) != NULL;

			copy[pos] = (gchar)c;
			bytes = erpc_base64_decode(copy, 400, G_MAXSIZE, &error);
			if (valid) {
				gsize len = 0;
				g_autofree guint8 *want = g_base64_decode(copy, &len);
				g_assert_no_error(error);
				g_assert_cmpmem(g_bytes_get_data(bytes, NULL),
						g_bytes_get_size(bytes),
						want,
						len);
			} else if (c == '=') {
				g_assert_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS);
				g_assert_null(bytes);
			} else {
				g_autofree gchar *msg = g_strdup_printf(
				    "Invalid symbol %u, offset %" G_GSIZE_FORMAT ".",
				    c,
				    pos);
				g_assert_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS);
				g_assert_cmpstr(error->message, ==, msg);
				g_assert_null(bytes);
			}
		}
	}
}

static void
test_base64_strict(void)
{
	const struct {
		const gchar *text;
		const gchar *message; /* NULL: valid */
	} cases[] = {
	    {"", NULL},
	    {"QQ==", NULL},
	    {"QUI=", NULL},
	    {"QUJD", NULL},
	    /* the reference's words (Rust base64 0.22) */
	    {"QQ=", "Invalid padding"},
	    {"Q", "Invalid padding"},
	    {"QR==", "Invalid last symbol 82, offset 1."},
	    {"QUJ=", "Invalid last symbol 74, offset 2."},
	    {"Q===", "Invalid symbol 61, offset 1."},
	    {"QQ==QUJD", "Invalid symbol 61, offset 2."},
	    {"QU I", "Invalid symbol 32, offset 2."},
	    {"QUJD\nQUJD", "Invalid symbol 10, offset 4."},
	    /* a NUL character, as a parsed string carries it, is the byte 0 the peer sent */
	    {"aGk" ERPC_JSON_NUL "K", "Invalid symbol 0, offset 3."},
	    {ERPC_JSON_NUL, "Invalid symbol 0, offset 0."},
	    {"QUJD" ERPC_JSON_NUL "QUJD", "Invalid symbol 0, offset 4."},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(GBytes) bytes =
		    erpc_base64_decode(cases[i].text, strlen(cases[i].text), G_MAXSIZE, &error);
		if (cases[i].message == NULL) {
			g_assert_no_error(error);
			g_assert_nonnull(bytes);
		} else {
			g_assert_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS);
			g_assert_cmpstr(error->message, ==, cases[i].message);
		}
	}
}

static void
test_base64_limit(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) bytes = erpc_base64_decode("QUJDRA==", 8, 3, &error);

	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS);
	g_assert_null(bytes);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/base64/round-trip", test_base64_round_trip);
	g_test_add_func("/base64/every-symbol", test_base64_every_symbol);
	g_test_add_func("/base64/strict", test_base64_strict);
	g_test_add_func("/base64/limit", test_base64_limit);
	return g_test_run();
}
