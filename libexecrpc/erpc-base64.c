/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define ERPC_BASE64_AVX2 1
#endif

#include "erpc-base64.h"
#include "erpc-error.h"
#include "erpc-json.h"

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

/* 12 bits per pair of characters, 0xffff for a pair with a character outside the alphabet */
static guint16 *erpc_base64_decode_pairs = NULL;

static void
erpc_base64_init_decode_pairs(void)
{
	static gsize init = 0;
	guint16 *table;

	if (!g_once_init_enter(&init))
		return;
	erpc_base64_init_table();
	table = g_new(guint16, 65536);
	for (guint hi = 0; hi < 256; hi++) {
		for (guint lo = 0; lo < 256; lo++) {
			gint a = erpc_base64_table[hi];
			gint b = erpc_base64_table[lo];
			table[hi << 8 | lo] = a < 0 || b < 0 ? 0xffff : (guint16)(a << 6 | b);
		}
	}
	erpc_base64_decode_pairs = table;
	g_once_init_leave(&init, 1);
}

#ifdef ERPC_BASE64_AVX2
/*
 * 32 characters to 24 bytes per step. Validity: a character is in the
 * alphabet when the class bits of its low nibble and of its high nibble
 * share none; the value is the character plus an offset chosen by its high
 * nibble ('/' shares its nibble with '+' and is moved one slot down). Stops
 * at the first block with anything else in it, which the scalar loop then
 * reports. Returns the characters consumed; writes 8 bytes beyond the last
 * 24 of each step.
 */
__attribute__((target("avx2"))) static gsize
erpc_base64_decode_avx2(const guint8 *in, gsize len, guint8 *out)
{
	/*
	 * class bits: 0 for high nibbles without any valid character; 1 to 4 for
	 * the low nibbles that are invalid after 0x2_, 0x3_, 0x4_/0x6_, 0x5_/0x7_
	 */
	/* clang-format off */
	const __m256i lut_lo = _mm256_setr_epi8(
	    0x0b, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x07, 0x15, 0x17, 0x17, 0x17, 0x15,
	    0x0b, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x07, 0x15, 0x17, 0x17, 0x17, 0x15);
	const __m256i lut_hi = _mm256_setr_epi8(
	    0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x08, 0x10, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
	    0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x08, 0x10, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01);
	const __m256i lut_roll = _mm256_setr_epi8(
	    0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
	/* clang-format on */
	const __m256i nibble = _mm256_set1_epi8(0x0f);
	const __m256i slash = _mm256_set1_epi8('/');
	const __m256i merge_pairs = _mm256_set1_epi32(0x01400140);
	const __m256i merge_quads = _mm256_set1_epi32(0x00011000);
	/* clang-format off */
	const __m256i pack = _mm256_setr_epi8(
	    2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1,
	    2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
	/* clang-format on */
	const __m256i gather = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
	gsize done = 0;

	for (; done + 32 <= len; done += 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(in + done));
		__m256i hi = _mm256_and_si256(_mm256_srli_epi32(v, 4), nibble);
		__m256i lo = _mm256_and_si256(v, nibble);
		__m256i bad = _mm256_and_si256(_mm256_shuffle_epi8(lut_lo, lo),
					       _mm256_shuffle_epi8(lut_hi, hi));
		__m256i roll;

		if (!_mm256_testz_si256(bad, bad))
			break;
		roll =
		    _mm256_shuffle_epi8(lut_roll, _mm256_add_epi8(_mm256_cmpeq_epi8(v, slash), hi));
		v = _mm256_add_epi8(v, roll);
		v = _mm256_maddubs_epi16(v, merge_pairs);
		v = _mm256_madd_epi16(v, merge_quads);
		v = _mm256_shuffle_epi8(v, pack);
		v = _mm256_permutevar8x32_epi32(v, gather);
		_mm256_storeu_si256((__m256i *)out, v);
		out += 24;
	}
	return done;
}

static gboolean
erpc_base64_have_avx2(void)
{
	static gsize init = 0;
	static gboolean have = FALSE;

	/*
	 * cpuid asked here, on first use: __builtin_cpu_supports() would link
	 * libgcc's constructor, a dozen cpuid at every start, which a virtual
	 * machine traps (0.3 ms here). AVX2 needs the CPU's bit and the OS
	 * saving the YMM registers (OSXSAVE, then XCR0 bits 1 and 2).
	 */
	if (g_once_init_enter(&init)) {
		guint eax, ebx, ecx, edx;
		guint xcr0 = 0;
		guint xcr0_high = 0;

		if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_OSXSAVE) != 0 &&
		    (ecx & bit_AVX) != 0) {
			__asm__("xgetbv" : "=a"(xcr0), "=d"(xcr0_high) : "c"(0));
			if ((xcr0 & 0x6) == 0x6 && __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
				have = (ebx & bit_AVX2) != 0;
		}
		have = have && g_getenv("ERPC_BASE64_SCALAR") == NULL;
		g_once_init_leave(&init, 1);
	}
	return have;
}
#endif

static gint
erpc_base64_value(guchar c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* the trailing partial quad, checked in the order the reference's decoder does */
static gchar *
erpc_base64_describe_suffix(const guchar *text, gsize len, gsize start)
{
	gsize morsels = 0;
	gsize padding = 0;
	gsize first_pad = 0;
	guint64 bits = 0;
	guchar last = 0;
	gsize keep_bits;

	for (gsize i = start; i < len; i++) {
		guchar c = text[i];
		if (c == '=') {
			if ((i - start) % 4 < 2)
				return g_strdup_printf("Invalid symbol %u, offset %" G_GSIZE_FORMAT
						       ".",
						       (guint)c,
						       padding > 0 ? first_pad : i);
			if (padding == 0)
				first_pad = i;
			padding++;
			continue;
		}
		if (padding > 0)
			return g_strdup_printf("Invalid symbol %u, offset %" G_GSIZE_FORMAT ".",
					       (guint)'=',
					       first_pad);
		if (erpc_base64_value(c) < 0)
			return g_strdup_printf("Invalid symbol %u, offset %" G_GSIZE_FORMAT ".",
					       (guint)c,
					       i);
		bits |= (guint64)erpc_base64_value(c) << (58 - 6 * morsels);
		last = c;
		morsels++;
	}
	if ((padding + morsels) % 4 != 0)
		return g_strdup("Invalid padding");
	keep_bits = morsels * 6 / 8 * 8;
	if (keep_bits < 64 && (bits & (G_MAXUINT64 >> keep_bits)) != 0)
		return g_strdup_printf("Invalid last symbol %u, offset %" G_GSIZE_FORMAT ".",
				       (guint)last,
				       start + morsels - 1);
	return NULL;
}

/**
 * erpc_base64_describe_error:
 * @text: base64 text
 * @len: its length
 *
 * Describes why @text is not strict padded base64 in the words and order of
 * the reference's decoder (Rust `base64` 0.22): a trailing odd byte first,
 * then the first bad symbol of the complete quads, then the last quad.
 *
 * Returns: (transfer full) (nullable): the description, or %NULL when
 *   @text is valid
 *
 * Since: 0.1
 */
gchar *
erpc_base64_describe_error(const gchar *text, gsize len)
{
	const guchar *p = (const guchar *)text;
	gsize rem = len % 4;
	gsize quads;

	/* the text the peer sent holds a NUL byte where ERPC_JSON_NUL stands */
	if (memmem(text, len, ERPC_JSON_NUL, 2) != NULL) {
		g_autoptr(GString) sent = g_string_sized_new(len);
		for (gsize i = 0; i < len; i++) {
			if (i + 1 < len && memcmp(text + i, ERPC_JSON_NUL, 2) == 0) {
				g_string_append_c(sent, '\0');
				i++;
			} else {
				g_string_append_c(sent, text[i]);
			}
		}
		return erpc_base64_describe_error(sent->str, sent->len);
	}
	if (rem == 1 && p[len - 1] != '=' && erpc_base64_value(p[len - 1]) < 0)
		return g_strdup_printf("Invalid symbol %u, offset %" G_GSIZE_FORMAT ".",
				       (guint)p[len - 1],
				       len - 1);
	quads = len - rem;
	if (rem == 0)
		quads = quads >= 4 ? quads - 4 : 0;
	for (gsize i = 0; i < quads; i++) {
		if (erpc_base64_value(p[i]) < 0)
			return g_strdup_printf("Invalid symbol %u, offset %" G_GSIZE_FORMAT ".",
					       (guint)p[i],
					       i);
	}
	return erpc_base64_describe_suffix(p, len, quads);
}

/* the error for text the decoder refused, in the reference's words */
static void
erpc_base64_fail(const gchar *text, gsize len, GError **error)
{
	g_autofree gchar *detail = erpc_base64_describe_error(text, len);
	g_set_error_literal(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    detail != NULL ? detail : "Invalid base64");
}

/**
 * erpc_base64_decode_to:
 * @text: base64 text
 * @len: its length
 * @out: room for erpc_base64_decode_room(@len) bytes
 * @out_len: (out): the number of bytes decoded
 * @error: return location for a #GError, or %NULL
 *
 * Decodes strict standard base64 into the caller's buffer, which lets a
 * large text be decoded piece by piece through a buffer that stays in the
 * CPU cache. The buffer's content is undefined on error.
 *
 * Returns: %TRUE on success, %FALSE with %ERPC_ERROR_INVALID_PARAMS
 *
 * Since: 0.1
 */
gboolean
erpc_base64_decode_to(const gchar *text, gsize len, guint8 *out, gsize *out_len, GError **error)
{
	gsize pad = 0;
	gsize full;
	gsize i;
	guint8 *p;
	const guint8 *in = (const guint8 *)text;

	erpc_base64_init_decode_pairs();
	*out_len = 0;
	if (len == 0)
		return TRUE;
	if (len % 4 != 0) {
		erpc_base64_fail(text, len, error);
		return FALSE;
	}
	if (text[len - 1] == '=')
		pad = text[len - 2] == '=' ? 2 : 1;
	p = out;
	full = pad > 0 ? len - 4 : len;
	i = 0;
#ifdef ERPC_BASE64_AVX2
	if (erpc_base64_have_avx2()) {
		i = erpc_base64_decode_avx2(in, full, p);
		p += i / 4 * 3;
	}
#endif
	/* every group but the last: two table lookups give 24 bits */
	for (; i < full; i += 4) {
		guint32 a = erpc_base64_decode_pairs[in[i] << 8 | in[i + 1]];
		guint32 b = erpc_base64_decode_pairs[in[i + 2] << 8 | in[i + 3]];
		guint32 v;
		if (G_UNLIKELY((a | b) & 0xf000)) {
			erpc_base64_fail(text, len, error);
			return FALSE;
		}
		v = a << 12 | b;
		p[0] = (guint8)(v >> 16);
		p[1] = (guint8)(v >> 8);
		p[2] = (guint8)v;
		p += 3;
	}
	if (pad > 0) {
		const gchar *last = text + len - 4;
		gint v[4];
		for (gint j = 0; j < 4; j++) {
			v[j] = last[j] == '=' && j >= 4 - (gint)pad
				   ? 0
				   : erpc_base64_table[(guchar)last[j]];
			if (v[j] < 0) {
				erpc_base64_fail(text, len, error);
				return FALSE;
			}
		}
		/* the bits dropped by padding must be zero, as strict decoders require */
		if ((pad == 1 && (v[2] & 0x3) != 0) || (pad == 2 && (v[1] & 0xf) != 0)) {
			erpc_base64_fail(text, len, error);
			return FALSE;
		}
		*p++ = (guint8)((v[0] << 2) | (v[1] >> 4));
		if (pad == 1)
			*p++ = (guint8)((v[1] << 4) | (v[2] >> 2));
	}
	*out_len = (gsize)(p - out);
	return TRUE;
}

/**
 * erpc_base64_decode_room:
 * @len: the length of a base64 text
 *
 * How much room erpc_base64_decode_to() needs for @len bytes of text: a
 * little more than the decoded size, because the vector loop writes whole
 * blocks.
 *
 * Returns: the size of the buffer to give erpc_base64_decode_to()
 *
 * Since: 0.1
 */
gsize
erpc_base64_decode_room(gsize len)
{
	return len / 4 * 3 + 32;
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
	gsize decoded_len;

	if (len == 0)
		return g_bytes_new(NULL, 0);
	if (len % 4 != 0) {
		erpc_base64_fail(text, len, error);
		return NULL;
	}
	if (text[len - 1] == '=')
		pad = text[len - 2] == '=' ? 2 : 1;
	decoded_len = len / 4 * 3 - pad;
	if (decoded_len > max_decoded) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "decoded data of %" G_GSIZE_FORMAT
			    " bytes exceeds the limit of %" G_GSIZE_FORMAT " bytes",
			    decoded_len,
			    max_decoded);
		return NULL;
	}
	out = g_malloc(erpc_base64_decode_room(len));
	if (!erpc_base64_decode_to(text, len, out, &decoded_len, error))
		return NULL;
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

#ifdef ERPC_BASE64_AVX2
/*
 * 24 bytes to 32 characters per step (the multiply-shift method of Muła and
 * Lemire): each group of 3 bytes is spread over a 32-bit word, two multiplies
 * move its four 6-bit fields into bytes, and the character is the field plus
 * an offset picked by a 16-entry table. Returns the bytes consumed; reads up
 * to 4 bytes beyond them, so stops 28 bytes before the end.
 */
__attribute__((target("avx2"))) static gsize
erpc_base64_encode_avx2(const guint8 *in, gsize len, gchar *out)
{
	const __m256i spread = _mm256_setr_epi8(1,
						0,
						2,
						1,
						4,
						3,
						5,
						4,
						7,
						6,
						8,
						7,
						10,
						9,
						11,
						10,
						1,
						0,
						2,
						1,
						4,
						3,
						5,
						4,
						7,
						6,
						8,
						7,
						10,
						9,
						11,
						10);
	const __m256i offsets = _mm256_setr_epi8('a' - 26,
						 '0' - 52,
						 '0' - 52,
						 '0' - 52,
						 '0' - 52,
						 '0' - 52,
						 '0' - 52,
						 '0' - 52,
						 '0' - 52,
						 '0' - 52,
						 '0' - 52,
						 '+' - 62,
						 '/' - 63,
						 'A',
						 0,
						 0,
						 'a' - 26,
						 '0' - 52,
						 '0' - 52,
						 '0' - 52,
						 '0' - 52,
						 '0' - 52,
						 '0' - 52,
						 '0' - 52,
						 '0' - 52,
						 '0' - 52,
						 '0' - 52,
						 '+' - 62,
						 '/' - 63,
						 'A',
						 0,
						 0);
	gsize i = 0;

	for (; i + 28 <= len; i += 24) {
		__m128i lo = _mm_loadu_si128((const __m128i *)(in + i));
		__m128i hi = _mm_loadu_si128((const __m128i *)(in + i + 12));
		__m256i v = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
		__m256i t0, t1, t2, t3, fields, slot;

		v = _mm256_shuffle_epi8(v, spread);
		t0 = _mm256_and_si256(v, _mm256_set1_epi32(0x0fc0fc00));
		t1 = _mm256_mulhi_epu16(t0, _mm256_set1_epi32(0x04000040));
		t2 = _mm256_and_si256(v, _mm256_set1_epi32(0x003f03f0));
		t3 = _mm256_mullo_epi16(t2, _mm256_set1_epi32(0x01000010));
		fields = _mm256_or_si256(t1, t3);
		/* 0-25 to slot 13, 26-51 to 0, 52-61 to 1-10, 62 to 11, 63 to 12 */
		slot = _mm256_subs_epu8(fields, _mm256_set1_epi8(51));
		slot = _mm256_or_si256(
		    slot,
		    _mm256_and_si256(_mm256_cmpgt_epi8(_mm256_set1_epi8(26), fields),
				     _mm256_set1_epi8(13)));
		_mm256_storeu_si256((__m256i *)(out + i / 3 * 4),
				    _mm256_add_epi8(fields, _mm256_shuffle_epi8(offsets, slot)));
	}
	return i;
}
#endif

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
	gsize i;
	gchar *p;

	erpc_base64_init_pairs();
	g_string_set_size(out, start + (len + 2) / 3 * 4);
	p = out->str + start;
	i = 0;
#ifdef ERPC_BASE64_AVX2
	if (erpc_base64_have_avx2()) {
		i = erpc_base64_encode_avx2(data, len, p);
		p += i / 3 * 4;
	}
#endif
	for (; i < full; i += 3) {
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
