/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "erpc-error.h"
#include "erpc-json-private.h"
#include "erpc-json.h"

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static gboolean
erpc_json_number_valid(const gchar *p, gsize len)
{
	gsize i = 0;

	if (i < len && p[i] == '-')
		i++;
	if (i >= len || !g_ascii_isdigit(p[i]))
		return FALSE;
	if (p[i] == '0')
		i++;
	else
		while (i < len && g_ascii_isdigit(p[i]))
			i++;
	if (i < len && p[i] == '.') {
		i++;
		if (i >= len || !g_ascii_isdigit(p[i]))
			return FALSE;
		while (i < len && g_ascii_isdigit(p[i]))
			i++;
	}
	if (i < len && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < len && (p[i] == '+' || p[i] == '-'))
			i++;
		if (i >= len || !g_ascii_isdigit(p[i]))
			return FALSE;
		while (i < len && g_ascii_isdigit(p[i]))
			i++;
	}
	return i == len;
}

static void
erpc_json_add_span(GArray **spans, gsize start, gsize len, guint clamp)
{
	ErpcJsonSpan span = {start, len, clamp};
	if (*spans == NULL)
		*spans = g_array_new(FALSE, FALSE, sizeof(ErpcJsonSpan));
	g_array_append_val(*spans, span);
}

void
_erpc_json_scan_clear(ErpcJsonScan *scan)
{
	g_clear_pointer(&scan->spans, g_array_unref);
	g_clear_error(&scan->soft);
}

/* where the reference's reader stands after the byte at @where: lines from 1, columns of bytes */
static void
erpc_json_locate(const gchar *data, gsize where, guint *line, gsize *column)
{
	gsize line_start = 0;

	*line = 1;
	for (gsize i = 0; i <= where; i++) {
		if (data[i] == '\n') {
			(*line)++;
			line_start = i + 1;
		}
	}
	*column = where + 1 - line_start;
}

static gboolean
erpc_json_fail_at(GError **error, const gchar *data, gsize where, const gchar *what)
{
	guint line;
	gsize column;

	erpc_json_locate(data, where, &line, &column);
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_PARSE,
		    "%s at line %u column %" G_GSIZE_FORMAT,
		    what,
		    line,
		    column);
	return FALSE;
}

/* notes a problem inside a string, unless an earlier one is noted already */
static void
erpc_json_soft(ErpcJsonScan *scan, const gchar *data, gsize where, const gchar *what)
{
	scan->rewrite = TRUE;
	if (scan->soft != NULL && scan->soft_pos <= where)
		return;
	g_clear_error(&scan->soft);
	scan->soft_pos = where;
	if (what != NULL)
		erpc_json_fail_at(&scan->soft, data, where, what);
	else
		g_set_error_literal(&scan->soft,
				    ERPC_ERROR,
				    ERPC_ERROR_PARSE,
				    "message is not valid UTF-8 or contains a NUL byte");
}

/*
 * json-glib silently wraps integers beyond 64 signed bits: read unsigned
 * ones up to 2^64-1 (u64 fields: offsets, limits) as the largest i64, which
 * no such field can tell apart, and wider ones as floats, as serde does. A
 * number no double holds (1e400, 1e-400) becomes a number of no value.
 */
static gboolean
erpc_json_check_number(const gchar *data, gsize len, gsize *pos, ErpcJsonScan *scan, GError **error)
{
	gsize start = *pos;
	gsize end = start;
	gboolean integer = TRUE;
	gchar buf[32];

	while (end < len && (g_ascii_isdigit(data[end]) || data[end] == '-' || data[end] == '+' ||
			     data[end] == '.' || data[end] == 'e' || data[end] == 'E')) {
		if (data[end] == '.' || data[end] == 'e' || data[end] == 'E')
			integer = FALSE;
		end++;
	}
	*pos = end - 1;
	/* JSON's grammar, as json-glib also reads hex, octal and leading zeros */
	if (!erpc_json_number_valid(data + start, end - start) ||
	    (end < len && g_ascii_isalnum(data[end]))) {
		g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_PARSE, "invalid number");
		return FALSE;
	}
	if (integer && end - start < sizeof(buf)) {
		gint64 value;
		guint64 uvalue;
		memcpy(buf, data + start, end - start);
		buf[end - start] = '\0';
		if (g_ascii_string_to_signed(buf, 10, G_MININT64, G_MAXINT64, &value, NULL))
			return TRUE;
		if (g_ascii_string_to_unsigned(buf, 10, 0, G_MAXUINT64, &uvalue, NULL)) {
			if (scan->want_spans)
				erpc_json_add_span(&scan->spans,
						   start,
						   end - start,
						   ERPC_JSON_SPAN_CLAMP);
			return TRUE;
		}
	}
	if (!_erpc_json_number_fits(data + start, end - start))
		scan->rewrite = TRUE;
	else if (integer && scan->want_spans)
		erpc_json_add_span(&scan->spans, start, end - start, ERPC_JSON_SPAN_FLOAT);
	return TRUE;
}

#define ERPC_SWAR_ONES	  G_GUINT64_CONSTANT(0x0101010101010101)
#define ERPC_SWAR_HIGHS	  G_GUINT64_CONSTANT(0x8080808080808080)
#define ERPC_SWAR_ZERO(v) (((v)-ERPC_SWAR_ONES) & ~(v)&ERPC_SWAR_HIGHS)

/* eight string bytes at a time: TRUE when none is a quote, backslash, control or non-ASCII */
static inline gboolean
erpc_json_plain8(const gchar *p)
{
	guint64 w;
	memcpy(&w, p, 8);
	return ((w | (w - ERPC_SWAR_ONES * 0x20)) & ERPC_SWAR_HIGHS) == 0 &&
	       ERPC_SWAR_ZERO(w ^ (ERPC_SWAR_ONES * '"')) == 0 &&
	       ERPC_SWAR_ZERO(w ^ (ERPC_SWAR_ONES * '\\')) == 0;
}

/* the start of the first of up to @len string bytes that is not plain, or @len */
static inline gsize
erpc_json_skip_plain(const gchar *p, gsize len)
{
	gsize i = 0;
#ifdef __SSE2__
	/* as signed bytes, controls and non-ASCII bytes are both below 0x20 */
	const __m128i quote = _mm_set1_epi8('"');
	const __m128i backslash = _mm_set1_epi8('\\');
	const __m128i space = _mm_set1_epi8(0x20);
#define ERPC_JSON_SPECIAL(v)                                                                       \
	_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),         \
		     _mm_cmplt_epi8(v, space))
	/* long strings (base64 file contents) 64 bytes per step, one test for all four
	 * vectors; the 16-byte loop then finds the vector with the special byte */
	for (; i + 64 <= len; i += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)(p + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(p + i + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(p + i + 32));
		__m128i d = _mm_loadu_si128((const __m128i *)(p + i + 48));
		__m128i special =
		    _mm_or_si128(_mm_or_si128(ERPC_JSON_SPECIAL(a), ERPC_JSON_SPECIAL(b)),
				 _mm_or_si128(ERPC_JSON_SPECIAL(c), ERPC_JSON_SPECIAL(d)));
		if (_mm_movemask_epi8(special) != 0)
			break;
	}
#undef ERPC_JSON_SPECIAL
	for (; i + 16 <= len; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(p + i));
		__m128i special = _mm_or_si128(
		    _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
		    _mm_cmplt_epi8(v, space));
		if (_mm_movemask_epi8(special) != 0)
			break;
	}
#endif
	while (i + 8 <= len && erpc_json_plain8(p + i))
		i += 8;
	return i;
}

/**
 * erpc_json_plain_map_new: (skip)
 *
 * For transports: notes, as a message arrives and while its bytes are in
 * the CPU cache, which 64 KiB blocks of it hold no quote, backslash,
 * control or non-ASCII byte. The scan of the whole message then steps over
 * those blocks inside a string instead of reading them from memory again,
 * which is most of the scan of a large fs/writeFile.
 *
 * Returns: (transfer full): an empty map
 *
 * Since: 0.1
 */
ErpcJsonPlainMap *
erpc_json_plain_map_new(void)
{
	ErpcJsonPlainMap *self = g_new0(ErpcJsonPlainMap, 1);
	self->special = g_byte_array_new();
	return self;
}

/* whether all of @len string bytes are plain */
static gboolean
erpc_json_all_plain(const gchar *p, gsize len)
{
	gsize i = erpc_json_skip_plain(p, len);

	for (; i < len; i++) {
		guchar c = (guchar)p[i];
		if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
			return FALSE;
	}
	return TRUE;
}

/**
 * erpc_json_plain_map_add: (skip)
 * @self: a #ErpcJsonPlainMap
 * @offset: where @data is in the message: the end of what was added before
 * @data: the next bytes of the message, as they will be parsed
 * @len: their length
 *
 * Adds bytes of the message; bytes added out of order make the map useless,
 * never wrong.
 *
 * Since: 0.1
 */
void
erpc_json_plain_map_add(ErpcJsonPlainMap *self, gsize offset, const gchar *data, gsize len)
{
	g_return_if_fail(self != NULL);
	if (self->broken || offset != self->end) {
		self->broken = TRUE;
		return;
	}
	while (len > 0) {
		gsize block = offset >> ERPC_JSON_PLAIN_SHIFT;
		gsize block_end = (block + 1) << ERPC_JSON_PLAIN_SHIFT;
		gsize n = MIN(len, block_end - offset);

		if (self->special->len <= block) {
			guint8 clean = FALSE;
			g_byte_array_append(self->special, &clean, 1);
		}
		if (!self->special->data[block] && !erpc_json_all_plain(data, n))
			self->special->data[block] = TRUE;
		offset += n;
		data += n;
		len -= n;
	}
	self->end = offset;
}

/**
 * erpc_json_plain_map_free: (skip)
 * @self: (nullable): a #ErpcJsonPlainMap
 *
 * Frees the map.
 *
 * Since: 0.1
 */
void
erpc_json_plain_map_free(ErpcJsonPlainMap *self)
{
	if (self == NULL)
		return;
	g_byte_array_unref(self->special);
	g_free(self);
}

/* inside a string at @i: the end of the plain blocks from there, or @i */
static inline gsize
erpc_json_skip_plain_blocks(const ErpcJsonPlainMap *plain, gsize i, gsize len)
{
	/* only blocks added whole count */
	gsize whole = plain->end >> ERPC_JSON_PLAIN_SHIFT;
	gsize block = i >> ERPC_JSON_PLAIN_SHIFT;
	gsize end;

	while (block < whole && !plain->special->data[block])
		block++;
	end = block << ERPC_JSON_PLAIN_SHIFT;
	return end > i ? MIN(end, len) : i;
}

/* whether the string that ended before pos is a member name */
static gboolean
erpc_json_is_key(const gchar *data, gsize len, gsize pos)
{
	while (pos < len &&
	       (data[pos] == ' ' || data[pos] == '\t' || data[pos] == '\r' || data[pos] == '\n'))
		pos++;
	return pos < len && data[pos] == ':';
}

/*
 * A hard error ends the scan; an earlier problem inside a string is what
 * the reference would have named, so it is named instead
 */
static gboolean
erpc_json_scan_fail(ErpcJsonScan *scan, GError *hard, GError **error)
{
	if (scan->soft != NULL) {
		g_propagate_error(error, g_steal_pointer(&scan->soft));
		g_error_free(hard);
		return FALSE;
	}
	g_propagate_error(error, hard);
	return FALSE;
}

/* the string starting after the quote at *pos; *pos ends on the closing quote */
static gboolean
erpc_json_scan_string(const gchar *data,
		      gsize len,
		      gsize *pos,
		      gboolean *non_ascii,
		      ErpcJsonScan *scan,
		      GError **error)
{
	gsize start = *pos + 1;
	gboolean escaped = FALSE;

	for (gsize i = start; i < len; i++) {
		guchar c;

		gsize limit = len;

		/* blocks the map knows are plain are stepped over; within another block the
		 * bytes are read, to its end only, where the map may take over again */
		if (scan->plain != NULL) {
			i = erpc_json_skip_plain_blocks(scan->plain, i, len);
			if (i >= len)
				break;
			limit =
			    MIN(len, ((i >> ERPC_JSON_PLAIN_SHIFT) + 1) << ERPC_JSON_PLAIN_SHIFT);
		}
		i += erpc_json_skip_plain(data + i, limit - i);
		if (i >= len)
			break;
		c = (guchar)data[i];
		if (c == '"') {
			if (scan->want_big && !escaped && i - start >= ERPC_JSON_BIG_STRING &&
			    !erpc_json_is_key(data, len, i + 1))
				erpc_json_add_span(&scan->spans,
						   start,
						   i - start,
						   ERPC_JSON_SPAN_STRING);
			*pos = i;
			return TRUE;
		}
		if (c == '\\') {
			const gchar *why = NULL;
			gsize where = i;
			gsize end = i;
			escaped = TRUE;
			switch (_erpc_json_read_escape(data, len, i, &end, &why, &where)) {
			case ERPC_JSON_ESCAPE_NUL:
				scan->rewrite = TRUE;
				break;
			case ERPC_JSON_ESCAPE_BAD:
				erpc_json_soft(scan, data, where, why);
				break;
			case ERPC_JSON_ESCAPE_EOF:
				return erpc_json_fail_at(error,
							 data,
							 len - 1,
							 "EOF while parsing a string");
			case ERPC_JSON_ESCAPE_PLAIN:
			case ERPC_JSON_ESCAPE_MARK:
			default:
				break;
			}
			i = end - 1;
		} else if (c < 0x20) {
			/* a raw NUL too: the message is read, the string is not */
			escaped = TRUE;
			erpc_json_soft(scan,
				       data,
				       i,
				       "control character (\\u0000-\\u001F) found while parsing a "
				       "string");
		} else if (c >= 0x80) {
			/* only strings can hold non-ASCII bytes: validated at the end */
			*non_ascii = TRUE;
		}
	}
	return erpc_json_fail_at(error, data, len > 0 ? len - 1 : 0, "EOF while parsing a string");
}

/*
 * The bounded pre-scan: size, encoding, nesting and what json-glib would
 * take silently. Hard errors fail; what only spoils a string is kept in
 * @scan, with the spans the parser treats apart.
 */
gboolean
_erpc_json_scan(const gchar *data,
		gsize len,
		gsize max_size,
		guint max_depth,
		ErpcJsonScan *scan,
		GError **error)
{
	g_autoptr(GError) hard = NULL;
	guint depth = 0;
	gboolean seen_value = FALSE;
	gboolean non_ascii = FALSE;
	const gchar *invalid = NULL;

	g_return_val_if_fail(data != NULL || len == 0, FALSE);

	/* a map of other bytes than these says nothing about them */
	if (scan->plain != NULL && (scan->plain->broken || scan->plain->end != len))
		scan->plain = NULL;
	if (len > max_size) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_PARSE,
			    "message of %" G_GSIZE_FORMAT
			    " bytes exceeds the limit of %" G_GSIZE_FORMAT " bytes",
			    len,
			    max_size);
		return FALSE;
	}
	for (gsize i = 0; i < len; i++) {
		guchar c = (guchar)data[i];
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			continue;
		if (c == 0 || c >= 0x80) {
			g_set_error_literal(&hard,
					    ERPC_ERROR,
					    ERPC_ERROR_PARSE,
					    "message is not valid UTF-8 or contains a NUL byte");
			return erpc_json_scan_fail(scan, g_steal_pointer(&hard), error);
		}
		if (seen_value && depth == 0) {
			erpc_json_fail_at(&hard, data, i, "trailing characters");
			return erpc_json_scan_fail(scan, g_steal_pointer(&hard), error);
		}
		switch (c) {
		case '"':
			if (!erpc_json_scan_string(data, len, &i, &non_ascii, scan, &hard))
				return erpc_json_scan_fail(scan, g_steal_pointer(&hard), error);
			if (depth == 0)
				seen_value = TRUE;
			break;
		case '[':
		case '{':
			if (++depth > max_depth) {
				g_set_error(&hard,
					    ERPC_ERROR,
					    ERPC_ERROR_PARSE,
					    "recursion limit exceeded: nesting deeper than %u",
					    max_depth);
				return erpc_json_scan_fail(scan, g_steal_pointer(&hard), error);
			}
			break;
		case ']':
		case '}':
			if (depth > 0)
				depth--;
			if (depth == 0)
				seen_value = TRUE;
			break;
		case '-':
		case '0' ... '9':
			if (!erpc_json_check_number(data, len, &i, scan, &hard))
				return erpc_json_scan_fail(scan, g_steal_pointer(&hard), error);
			if (depth == 0)
				seen_value = TRUE;
			break;
		case ',':
		case ':':
			break;
		default:
			/*
			 * json-glib also takes comments and single-quoted strings,
			 * which would hide nesting from this scan: only JSON passes
			 */
			if (!g_ascii_isalpha(c)) {
				erpc_json_fail_at(&hard, data, i, "unexpected character");
				return erpc_json_scan_fail(scan, g_steal_pointer(&hard), error);
			}
			/* true, false, null */
			while (i + 1 < len && g_ascii_isalpha(data[i + 1]))
				i++;
			if (depth == 0)
				seen_value = TRUE;
			break;
		}
	}
	/* a byte that is not UTF-8 can only be inside a string: the message is still read */
	if (non_ascii && !g_utf8_validate_len(data, len, &invalid))
		erpc_json_soft(scan, data, (gsize)(invalid - data), NULL);
	return TRUE;
}

/**
 * erpc_json_check:
 * @data: bytes received from a peer
 * @len: length of @data
 * @max_size: the largest message accepted, in bytes
 * @max_depth: the deepest nesting of arrays and objects accepted
 * @error: return location for a #GError, or %NULL
 *
 * Checks size, encoding, nesting and what json-glib would accept silently,
 * before any parser sees the bytes: the input must be valid UTF-8 without
 * NUL bytes, raw control characters, lone surrogates or unknown escapes in
 * strings, nest no deeper than @max_depth, and hold nothing but white space
 * after its top-level value. `\u0000` and numbers no double holds are
 * accepted: erpc_json_parse() reads them.
 *
 * Returns: %TRUE if the input may be parsed
 *
 * Since: 0.1
 */
gboolean
erpc_json_check(const gchar *data, gsize len, gsize max_size, guint max_depth, GError **error)
{
	g_auto(ErpcJsonScan) scan = {0};

	if (!_erpc_json_scan(data, len, max_size, max_depth, &scan, error))
		return FALSE;
	if (scan.soft != NULL) {
		g_propagate_error(error, g_steal_pointer(&scan.soft));
		return FALSE;
	}
	return TRUE;
}
