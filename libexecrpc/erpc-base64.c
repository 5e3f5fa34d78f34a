/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "erpc-base64.h"
#include "erpc-error.h"

/*
 * Standard base64 with padding (RFC 4648), strictly: g_base64_decode()
 * silently skips characters outside the alphabet, which would let garbage
 * through as data, so the alphabet, padding and length are checked here.
 */

static const gchar erpc_base64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static gint8 erpc_base64_table[256];
static gsize erpc_base64_table_init = 0;

static void
erpc_base64_init_table(void)
{
	if (!g_once_init_enter(&erpc_base64_table_init))
		return;
	memset(erpc_base64_table, -1, sizeof(erpc_base64_table));
	for (gint i = 0; i < 64; i++)
		erpc_base64_table[(guchar)erpc_base64_alphabet[i]] = (gint8)i;
	g_once_init_leave(&erpc_base64_table_init, 1);
}

/**
 * erpc_base64_decode:
 * @text: base64 text
 * @len: its length
 * @max_decoded: the most bytes the result may have
 * @error: return location for a #GError, or %NULL
 *
 * Decodes strict standard base64; the empty string is zero bytes.
 *
 * Returns: (transfer full): the bytes, or %NULL with %ERPC_ERROR_INVALID_PARAMS
 *
 * Since: 0.1
 */
GBytes *
erpc_base64_decode(const gchar *text, gsize len, gsize max_decoded, GError **error)
{
	g_autofree guint8 *out = NULL;
	gsize pad = 0;
	gsize n = 0;
	gsize decoded_len;

	erpc_base64_init_table();
	if (len == 0)
		return g_bytes_new(NULL, 0);
	if (len % 4 != 0) {
		g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS, "Invalid input length");
		return NULL;
	}
	if (text[len - 1] == '=')
		pad = text[len - 2] == '=' ? 2 : 1;
	decoded_len = len / 4 * 3 - pad;
	if (decoded_len > max_decoded) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "decoded data of %" G_GSIZE_FORMAT " bytes exceeds the limit of %" G_GSIZE_FORMAT
			    " bytes",
			    decoded_len,
			    max_decoded);
		return NULL;
	}
	out = g_malloc(decoded_len + 3);
	for (gsize i = 0; i < len; i += 4) {
		gint v[4];
		gboolean last = i + 4 == len;
		for (gint j = 0; j < 4; j++) {
			guchar c = (guchar)text[i + j];
			if (c == '=' && last && j >= 4 - (gint)pad) {
				v[j] = 0;
				continue;
			}
			v[j] = erpc_base64_table[c];
			if (v[j] < 0) {
				if (c == '=')
					g_set_error_literal(error,
							    ERPC_ERROR,
							    ERPC_ERROR_INVALID_PARAMS,
							    "Invalid padding");
				else
					g_set_error(error,
						    ERPC_ERROR,
						    ERPC_ERROR_INVALID_PARAMS,
						    "Invalid symbol %u, offset %" G_GSIZE_FORMAT ".",
						    (guint)c,
						    i + j);
				return NULL;
			}
		}
		out[n++] = (guint8)((v[0] << 2) | (v[1] >> 4));
		out[n++] = (guint8)((v[1] << 4) | (v[2] >> 2));
		out[n++] = (guint8)((v[2] << 6) | v[3]);
	}
	/* the bits dropped by padding must be zero, as strict decoders require */
	if ((pad == 1 && (erpc_base64_table[(guchar)text[len - 2]] & 0x3) != 0) ||
	    (pad == 2 && (erpc_base64_table[(guchar)text[len - 3]] & 0xf) != 0)) {
		g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS, "Invalid last symbol");
		return NULL;
	}
	return g_bytes_new_take(g_steal_pointer(&out), decoded_len);
}

/* two output characters per 12 input bits: half the lookups of a 6-bit table */
static guint16 erpc_base64_pairs[4096];
static gsize erpc_base64_pairs_init = 0;

static void
erpc_base64_init_pairs(void)
{
	if (!g_once_init_enter(&erpc_base64_pairs_init))
		return;
	for (guint i = 0; i < 4096; i++) {
		guint8 pair[2] = {(guint8)erpc_base64_alphabet[i >> 6],
				  (guint8)erpc_base64_alphabet[i & 0x3f]};
		memcpy(&erpc_base64_pairs[i], pair, 2);
	}
	g_once_init_leave(&erpc_base64_pairs_init, 1);
}

/**
 * erpc_base64_append:
 * @out: a #GString
 * @data: bytes
 * @len: their length
 *
 * Appends standard padded base64 of @data, without quotes.
 *
 * Since: 0.1
 */
void
erpc_base64_append(GString *out, const guint8 *data, gsize len)
{
	gsize start = out->len;
	gsize full = len / 3 * 3;
	gchar *p;

	erpc_base64_init_pairs();
	g_string_set_size(out, start + (len + 2) / 3 * 4);
	p = out->str + start;
	for (gsize i = 0; i < full; i += 3) {
		guint32 v = ((guint32)data[i] << 16) | ((guint32)data[i + 1] << 8) | data[i + 2];
		memcpy(p, &erpc_base64_pairs[v >> 12], 2);
		memcpy(p + 2, &erpc_base64_pairs[v & 0xfff], 2);
		p += 4;
	}
	if (len - full == 1) {
		guint32 v = (guint32)data[full] << 16;
		*p++ = erpc_base64_alphabet[(v >> 18) & 0x3f];
		*p++ = erpc_base64_alphabet[(v >> 12) & 0x3f];
		*p++ = '=';
		*p++ = '=';
	} else if (len - full == 2) {
		guint32 v = ((guint32)data[full] << 16) | ((guint32)data[full + 1] << 8);
		*p++ = erpc_base64_alphabet[(v >> 18) & 0x3f];
		*p++ = erpc_base64_alphabet[(v >> 12) & 0x3f];
		*p++ = erpc_base64_alphabet[(v >> 6) & 0x3f];
		*p++ = '=';
	}
}
