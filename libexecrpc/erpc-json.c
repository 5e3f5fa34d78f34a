/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "erpc-error.h"
#include "erpc-json-private.h"
#include "erpc-json.h"

/* longest string value quoted back in an error message */
#define ERPC_JSON_DESCRIBE_MAX 64

static gint
erpc_json_hex4(const gchar *p)
{
	gint value = 0;
	for (guint i = 0; i < 4; i++) {
		gint digit = g_ascii_xdigit_value(p[i]);
		if (digit < 0)
			return -1;
		value = value * 16 + digit;
	}
	return value;
}

/*
 * After `\u` at *pos: json-glib would truncate a string at an escaped NUL
 * and turn a lone surrogate into invalid UTF-8, so both are refused
 */
static gboolean
erpc_json_check_escape(const gchar *data, gsize len, gsize *pos, GError **error)
{
	gsize i = *pos;
	gint unit;

	if (i + 4 >= len || (unit = erpc_json_hex4(data + i + 1)) < 0) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_PARSE,
				    "invalid \\u escape: four hex digits expected");
		return FALSE;
	}
	if (unit == 0) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_PARSE,
				    "NUL characters (\\u0000) in strings are not supported");
		return FALSE;
	}
	if (unit >= 0xdc00 && unit <= 0xdfff)
		goto lone;
	if (unit >= 0xd800 && unit <= 0xdbff) {
		gint low;
		if (i + 10 >= len || data[i + 5] != '\\' || data[i + 6] != 'u')
			goto lone;
		low = erpc_json_hex4(data + i + 7);
		if (low < 0xdc00 || low > 0xdfff)
			goto lone;
		*pos = i + 10;
		return TRUE;
	}
	*pos = i + 4;
	return TRUE;
lone:
	g_set_error_literal(error,
			    ERPC_ERROR,
			    ERPC_ERROR_PARSE,
			    "lone leading surrogate in hex escape");
	return FALSE;
}

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

/* strings at least this long are kept out of json-glib, which is slow on them */
#define ERPC_JSON_BIG_STRING (256 * 1024)

typedef struct {
	gsize start; /* first byte after the opening quote, or of the number */
	gsize len;
	guint clamp; /* ERPC_JSON_SPAN_* */
} ErpcJsonSpan;

/* what a span stands for */
enum {
	ERPC_JSON_SPAN_STRING = 0, /* a big string, kept out of json-glib */
	ERPC_JSON_SPAN_CLAMP = 1,  /* an unsigned integer beyond i64, read as G_MAXINT64 */
	ERPC_JSON_SPAN_FLOAT = 2,  /* an integer beyond 64 bits, read as a float, as serde does */
};

static void
erpc_json_add_span(GArray **spans, gsize start, gsize len, guint clamp)
{
	ErpcJsonSpan span = {start, len, clamp};
	if (*spans == NULL)
		*spans = g_array_new(FALSE, FALSE, sizeof(ErpcJsonSpan));
	g_array_append_val(*spans, span);
}

/*
 * json-glib silently wraps integers beyond 64 signed bits: refuse negative
 * ones, and read unsigned ones up to 2^64-1 (u64 fields: offsets, limits)
 * as the largest i64, which no such field can tell apart
 */
static gboolean
erpc_json_check_number(const gchar *data, gsize len, gsize *pos, GArray **spans, GError **error)
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
	if (!integer) {
		/* 1e999 would become infinity, which no reply could carry */
		g_autofree gchar *token = g_strndup(data + start, end - start);
		gdouble value = g_ascii_strtod(token, NULL);
		if (isfinite(value))
			return TRUE;
		g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_PARSE, "number out of range");
		return FALSE;
	}
	if (end - start < sizeof(buf)) {
		gint64 value;
		guint64 uvalue;
		memcpy(buf, data + start, end - start);
		buf[end - start] = '\0';
		if (g_ascii_string_to_signed(buf, 10, G_MININT64, G_MAXINT64, &value, NULL))
			return TRUE;
		if (g_ascii_string_to_unsigned(buf, 10, 0, G_MAXUINT64, &uvalue, NULL)) {
			if (spans != NULL)
				erpc_json_add_span(spans, start, end - start, ERPC_JSON_SPAN_CLAMP);
			return TRUE;
		}
	}
	/* beyond 64 bits: a float, so that the request is answered with its id */
	if (spans != NULL) {
		g_autofree gchar *token = g_strndup(data + start, end - start);
		if (isfinite(g_ascii_strtod(token, NULL))) {
			erpc_json_add_span(spans, start, end - start, ERPC_JSON_SPAN_FLOAT);
			return TRUE;
		}
	}
	g_set_error_literal(error,
			    ERPC_ERROR,
			    ERPC_ERROR_PARSE,
			    "number out of range: integers must fit in 64 bits");
	return FALSE;
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

/* whether the string that ended before pos is a member name */
static gboolean
erpc_json_is_key(const gchar *data, gsize len, gsize pos)
{
	while (pos < len &&
	       (data[pos] == ' ' || data[pos] == '\t' || data[pos] == '\r' || data[pos] == '\n'))
		pos++;
	return pos < len && data[pos] == ':';
}

static gboolean
erpc_json_scan(const gchar *data,
	       gsize len,
	       gsize max_size,
	       guint max_depth,
	       GArray **spans,
	       GError **error)
{
	guint depth = 0;
	gboolean in_string = FALSE;
	gboolean seen_value = FALSE;
	gboolean non_ascii = FALSE;
	gboolean escaped = FALSE;
	gsize string_start = 0;
	guint line = 1;
	gsize line_start = 0;

	g_return_val_if_fail(data != NULL || len == 0, FALSE);

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
		if (in_string) {
			i += erpc_json_skip_plain(data + i, len - i);
			if (i >= len)
				break;
			c = (guchar)data[i];
			if (c == '\\') {
				escaped = TRUE;
				i++;
				if (i < len && data[i] == 0)
					goto encoding;
				if (i < len && (guchar)data[i] < 0x20)
					goto control;
				if (i < len && data[i] == 'u') {
					if (!erpc_json_check_escape(data, len, &i, error))
						return FALSE;
				} else if (i < len && strchr("\"\\/bfnrt", data[i]) == NULL) {
					/* json-glib would take octal and unknown escapes too */
					g_set_error(
					    error,
					    ERPC_ERROR,
					    ERPC_ERROR_PARSE,
					    "invalid escape at line %u column %" G_GSIZE_FORMAT,
					    line,
					    i - line_start + 1);
					return FALSE;
				}
			} else if (c == '"') {
				in_string = FALSE;
				if (depth == 0)
					seen_value = TRUE;
				if (spans != NULL && !escaped &&
				    i - string_start >= ERPC_JSON_BIG_STRING &&
				    !erpc_json_is_key(data, len, i + 1))
					erpc_json_add_span(spans,
							   string_start,
							   i - string_start,
							   FALSE);
			} else if (c < 0x20) {
				if (c == 0)
					goto encoding;
				goto control;
			} else if (c >= 0x80) {
				non_ascii = TRUE;
			}
			continue;
		}
		if (c == '\n') {
			line++;
			line_start = i + 1;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r')
			continue;
		if (c == 0 || c >= 0x80)
			goto encoding;
		if (seen_value && depth == 0) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_PARSE,
				    "trailing characters at line %u column %" G_GSIZE_FORMAT,
				    line,
				    i - line_start + 1);
			return FALSE;
		}
		switch (c) {
		case '"':
			in_string = TRUE;
			escaped = FALSE;
			string_start = i + 1;
			break;
		case '[':
		case '{':
			if (++depth > max_depth) {
				g_set_error(error,
					    ERPC_ERROR,
					    ERPC_ERROR_PARSE,
					    "recursion limit exceeded: nesting deeper than %u",
					    max_depth);
				return FALSE;
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
			if (!erpc_json_check_number(data, len, &i, spans, error))
				return FALSE;
			if (depth == 0)
				seen_value = TRUE;
			break;
		case ',':
		case ':':
			break;
		default:
			/*
			 * json-glib also takes comments and single-quoted strings,
			 * which would hide nesting from this scan: only JSON passes;
			 * this also refuses NUL bytes and non-ASCII outside strings
			 */
			if (!g_ascii_isalpha(c)) {
				g_set_error(
				    error,
				    ERPC_ERROR,
				    ERPC_ERROR_PARSE,
				    "unexpected character at line %u column %" G_GSIZE_FORMAT,
				    line,
				    i - line_start + 1);
				return FALSE;
			}
			/* true, false, null */
			while (i + 1 < len && g_ascii_isalpha(data[i + 1]))
				i++;
			if (depth == 0)
				seen_value = TRUE;
			break;
		}
	}
	/* only strings can hold non-ASCII bytes: validate when there are some */
	if (non_ascii && !g_utf8_validate_len(data, len, NULL))
		goto encoding;
	return TRUE;
encoding:
	g_set_error_literal(error,
			    ERPC_ERROR,
			    ERPC_ERROR_PARSE,
			    "message is not valid UTF-8 or contains a NUL byte");
	return FALSE;
control:
	g_set_error_literal(error,
			    ERPC_ERROR,
			    ERPC_ERROR_PARSE,
			    "control character (\\u0000-\\u001F) found while parsing a string");
	return FALSE;
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
 * NUL bytes, raw control characters or `\u0000` escapes in strings, nest no
 * deeper than @max_depth, hold integers that fit in 64 signed bits, and
 * hold nothing but white space after its top-level value.
 *
 * Returns: %TRUE if the input may be parsed
 *
 * Since: 0.1
 */
gboolean
erpc_json_check(const gchar *data, gsize len, gsize max_size, guint max_depth, GError **error)
{
	return erpc_json_scan(data, len, max_size, max_depth, NULL, error);
}

static void
erpc_json_parser_free(gpointer data)
{
	g_object_unref(data);
}

/* one parser per thread, reset by every load */
static GPrivate erpc_json_parser_key = G_PRIVATE_INIT(erpc_json_parser_free);

static JsonParser *
erpc_json_get_parser(void)
{
	JsonParser *parser = g_private_get(&erpc_json_parser_key);
	if (parser == NULL) {
		parser = json_parser_new_immutable();
		g_private_set(&erpc_json_parser_key, parser);
	}
	return parser;
}

/* "<data>:1:7: Parse error: unexpected character" → "unexpected character at line 1 column 7" */
static gchar *
erpc_json_rewrite_parse_error(const gchar *message)
{
	guint line = 0;
	guint column = 0;
	gint consumed = 0;
	const gchar *detail;

	if (sscanf(message, "<data>:%u:%u: %n", &line, &column, &consumed) != 2 || consumed == 0)
		return g_utf8_make_valid(message, -1);
	detail = message + consumed;
	if (g_str_has_prefix(detail, "Parse error: "))
		detail += strlen("Parse error: ");
	{
		/* json-glib may cut its quote of the input inside a character */
		g_autofree gchar *valid = g_utf8_make_valid(detail, -1);
		return g_strdup_printf("%s at line %u column %u", valid, line, column);
	}
}

/*
 * a placeholder is "\001erpc-big-NONCE-INDEX\001": the nonce is random for
 * every parse, so that a peer cannot write a string that would be replaced
 */
struct _ErpcJsonBlobs {
	const gchar *data;
	GArray *spans;
	gchar *prefix;	   /* "\001erpc-big-NONCE-" */
	gboolean *patched; /* put back, or handed out by _erpc_json_blobs_lookup() */
};

void
_erpc_json_blobs_free(ErpcJsonBlobs *blobs)
{
	if (blobs == NULL)
		return;
	g_array_unref(blobs->spans);
	g_free(blobs->prefix);
	g_free(blobs->patched);
	g_free(blobs);
}

/* the span a placeholder stands for, or NULL */
static ErpcJsonSpan *
erpc_json_blobs_find(ErpcJsonBlobs *blobs, const gchar *text, guint *index_out)
{
	gchar *end = NULL;
	guint64 index;

	if (text == NULL || text[0] != '\001' || !g_str_has_prefix(text, blobs->prefix))
		return NULL;
	index = g_ascii_strtoull(text + strlen(blobs->prefix), &end, 10);
	if (end == NULL || g_strcmp0(end, "\001") != 0 || index >= blobs->spans->len ||
	    blobs->patched[index])
		return NULL;
	*index_out = (guint)index;
	return &g_array_index(blobs->spans, ErpcJsonSpan, index);
}

/* puts the big strings under @node back in place of their placeholders */
void
_erpc_json_blobs_expand(ErpcJsonBlobs *blobs, JsonNode *node)
{
	if (JSON_NODE_HOLDS_OBJECT(node)) {
		JsonObjectIter iter;
		const gchar *name;
		JsonNode *member;
		json_object_iter_init(&iter, json_node_get_object(node));
		while (json_object_iter_next(&iter, &name, &member))
			_erpc_json_blobs_expand(blobs, member);
	} else if (JSON_NODE_HOLDS_ARRAY(node)) {
		JsonArray *array = json_node_get_array(node);
		for (guint i = 0; i < json_array_get_length(array); i++)
			_erpc_json_blobs_expand(blobs, json_array_get_element(array, i));
	} else if (JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == G_TYPE_STRING) {
		g_autofree gchar *big = NULL;
		ErpcJsonSpan *span;
		guint index = 0;

		span = erpc_json_blobs_find(blobs, json_node_get_string(node), &index);
		if (span == NULL)
			return;
		blobs->patched[index] = TRUE;
		big = g_strndup(blobs->data + span->start, span->len);
		json_node_set_string(node, big);
	}
}

/*
 * The text a placeholder stands for, inside the parsed data: not
 * terminated, and never handed out twice. FALSE when @text is no
 * placeholder of this parse.
 */
gboolean
_erpc_json_blobs_lookup(ErpcJsonBlobs *blobs, const gchar *text, const gchar **data, gsize *len)
{
	ErpcJsonSpan *span;
	guint index = 0;

	span = erpc_json_blobs_find(blobs, text, &index);
	if (span == NULL)
		return FALSE;
	blobs->patched[index] = TRUE;
	*data = blobs->data + span->start;
	*len = span->len;
	return TRUE;
}

static JsonNode *
erpc_json_parse_text(JsonParser *parser, const gchar *data, gsize len, GError **error)
{
	g_autoptr(GError) error_local = NULL;
	JsonNode *root;

	if (!json_parser_load_from_data(parser, data, (gssize)len, &error_local)) {
		g_autofree gchar *detail = erpc_json_rewrite_parse_error(error_local->message);
		g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_PARSE, detail);
		return NULL;
	}
	root = json_parser_steal_root(parser);
	if (root == NULL) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_PARSE,
				    "EOF while parsing a value");
		return NULL;
	}
	return root;
}

/*
 * for erpc_message_parse(): also tells whether an integer was clamped. With
 * @blobs, big strings stay placeholders and *@blobs tells where their text
 * is in @data, which the caller keeps alive; without, they are put back.
 */
JsonNode *
_erpc_json_parse_full(const gchar *data,
		      gsize len,
		      gsize max_size,
		      guint max_depth,
		      gboolean *clamped,
		      ErpcJsonBlobs **blobs,
		      GError **error)
{
	g_autoptr(GArray) spans = NULL;
	g_autoptr(GString) reduced = NULL;
	g_autoptr(JsonParser) parser = NULL;
	g_autofree gchar *nonce = NULL;
	ErpcJsonBlobs *found;
	JsonNode *root;
	gsize pos = 0;
	guint n_big = 0;

	if (clamped != NULL)
		*clamped = FALSE;
	if (blobs != NULL)
		*blobs = NULL;
	if (!erpc_json_scan(data, len, max_size, max_depth, &spans, error))
		return NULL;
	if (spans == NULL)
		return erpc_json_parse_text(erpc_json_get_parser(), data, len, error);

	nonce = g_strdup_printf("%08x%08x%08x%08x",
				g_random_int(),
				g_random_int(),
				g_random_int(),
				g_random_int());
	reduced = g_string_sized_new(1024);
	for (guint i = 0; i < spans->len; i++) {
		ErpcJsonSpan *span = &g_array_index(spans, ErpcJsonSpan, i);
		g_string_append_len(reduced, data + pos, (gssize)(span->start - pos));
		if (span->clamp == ERPC_JSON_SPAN_CLAMP) {
			g_string_append(reduced, "9223372036854775807");
			if (clamped != NULL)
				*clamped = TRUE;
		} else if (span->clamp == ERPC_JSON_SPAN_FLOAT) {
			g_string_append_len(reduced, data + span->start, (gssize)span->len);
			g_string_append(reduced, ".0");
		} else {
			g_string_append_printf(reduced, "\\u0001erpc-big-%s-%u\\u0001", nonce, i);
			n_big++;
		}
		pos = span->start + span->len;
	}
	g_string_append_len(reduced, data + pos, (gssize)(len - pos));
	if (n_big == 0)
		return erpc_json_parse_text(erpc_json_get_parser(),
					    reduced->str,
					    reduced->len,
					    error);
	/* a mutable tree, so that the strings can be put back */
	parser = json_parser_new();
	root = erpc_json_parse_text(parser, reduced->str, reduced->len, error);
	if (root == NULL)
		return NULL;
	found = g_new0(ErpcJsonBlobs, 1);
	found->data = data;
	found->patched = g_new0(gboolean, spans->len);
	found->spans = g_steal_pointer(&spans);
	found->prefix = g_strdup_printf("\001erpc-big-%s-", nonce);
	if (blobs != NULL) {
		*blobs = found;
		return root;
	}
	_erpc_json_blobs_expand(found, root);
	_erpc_json_blobs_free(found);
	return root;
}

/**
 * erpc_json_parse:
 * @data: bytes received from a peer
 * @len: length of @data
 * @max_size: the largest message accepted, in bytes
 * @max_depth: the deepest nesting accepted
 * @error: return location for a #GError, or %NULL
 *
 * Checks the input with erpc_json_check() and parses it. Strings of a
 * quarter megabyte or more without escapes (file contents in base64) are
 * cut out before json-glib sees the text and put back afterwards, which
 * makes large messages several times faster to parse. Unsigned integers
 * beyond 2^63-1 read as 2^63-1.
 *
 * Returns: (transfer full): the root node, or %NULL with %ERPC_ERROR_PARSE set
 *
 * Since: 0.1
 */
JsonNode *
erpc_json_parse(const gchar *data, gsize len, gsize max_size, guint max_depth, GError **error)
{
	return _erpc_json_parse_full(data, len, max_size, max_depth, NULL, NULL, error);
}

/*
 * A float the way serde's type errors show one: the shortest digits that
 * read back to the same value, in plain decimal notation, with a ".0" when
 * the value is integral (`1.0`, `18446744073709552000.0`, `0.0001`).
 */
static gchar *
erpc_json_float_display(gdouble value)
{
	gchar digits[64];
	g_autoptr(GString) out = g_string_new(NULL);
	const gchar *mantissa;
	gchar *e;
	gint exponent;
	gint n_digits;
	gint point;

	if (!isfinite(value))
		return g_strdup(isnan(value) ? "NaN" : value > 0 ? "inf" : "-inf");
	/* the shortest precision that round-trips */
	for (gint precision = 0; precision < 17; precision++) {
		g_snprintf(digits, sizeof(digits), "%.*e", precision, value);
		if (g_ascii_strtod(digits, NULL) == value)
			break;
	}
	if (digits[0] == '-') {
		g_string_append_c(out, '-');
		mantissa = digits + 1;
	} else {
		mantissa = digits;
	}
	e = strchr(mantissa, 'e');
	exponent = (gint)g_ascii_strtoll(e + 1, NULL, 10);
	*e = '\0';
	/* the significant digits without the point: d.ddd */
	{
		g_autoptr(GString) sig = g_string_new(NULL);
		for (const gchar *c = mantissa; *c != '\0'; c++) {
			if (*c != '.')
				g_string_append_c(sig, *c);
		}
		n_digits = (gint)sig->len;
		point = exponent + 1; /* digits before the point */
		if (point <= 0) {
			g_string_append(out, "0.");
			for (gint k = 0; k < -point; k++)
				g_string_append_c(out, '0');
			g_string_append(out, sig->str);
		} else if (point >= n_digits) {
			g_string_append(out, sig->str);
			for (gint k = n_digits; k < point; k++)
				g_string_append_c(out, '0');
			g_string_append(out, ".0");
		} else {
			g_string_append_len(out, sig->str, point);
			g_string_append_c(out, '.');
			g_string_append(out, sig->str + point);
		}
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/**
 * erpc_json_describe:
 * @node: (nullable): a node
 *
 * Describes a value the way type errors on the wire name it, for example
 * `integer `5``, `string "x"`, `map` or `null`.
 *
 * Returns: (transfer full): a description
 *
 * Since: 0.1
 */
gchar *
erpc_json_describe(JsonNode *node)
{
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return g_strdup("null");
	if (JSON_NODE_HOLDS_OBJECT(node))
		return g_strdup("map");
	if (JSON_NODE_HOLDS_ARRAY(node))
		return g_strdup("sequence");
	switch (json_node_get_value_type(node)) {
	case G_TYPE_BOOLEAN:
		return g_strdup_printf("boolean `%s`",
				       json_node_get_boolean(node) ? "true" : "false");
	case G_TYPE_INT64:
		return g_strdup_printf("integer `%" G_GINT64_FORMAT "`", json_node_get_int(node));
	case G_TYPE_DOUBLE: {
		g_autofree gchar *text = erpc_json_float_display(json_node_get_double(node));
		return g_strdup_printf("floating point `%s`", text);
	}
	case G_TYPE_STRING: {
		const gchar *str = json_node_get_string(node);
		g_autoptr(GString) out = g_string_new("string ");
		gsize len = strlen(str);
		if (len > ERPC_JSON_DESCRIBE_MAX) {
			gsize cut = ERPC_JSON_DESCRIBE_MAX;
			/* back to the start of a character */
			while (cut > 0 && ((guchar)str[cut] & 0xc0) == 0x80)
				cut--;
			erpc_json_append_string(out, str, (gssize)cut);
			g_string_insert(out, out->len - 1, "...");
		} else {
			erpc_json_append_string(out, str, (gssize)len);
		}
		return g_string_free(g_steal_pointer(&out), FALSE);
	}
	default:
		return g_strdup("value");
	}
}

static gboolean
erpc_json_type_error(JsonNode *node, const gchar *expected, GError **error)
{
	g_autofree gchar *what = erpc_json_describe(node);
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_INVALID_PARAMS,
		    "invalid type: %s, expected %s",
		    what,
		    expected);
	return FALSE;
}

static gboolean
erpc_json_missing(const gchar *member, GError **error)
{
	g_set_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS, "missing field `%s`", member);
	return FALSE;
}

/**
 * erpc_json_check_unit:
 * @params: (nullable): the params of a request
 *
 * Accepts what a method without params accepts: no params, `null` or `{}`.
 *
 * Returns: %TRUE if @params is empty
 *
 * Since: 0.1
 */
gboolean
erpc_json_check_unit(JsonNode *params, GError **error)
{
	if (params == NULL || JSON_NODE_HOLDS_NULL(params))
		return TRUE;
	if (JSON_NODE_HOLDS_OBJECT(params) &&
	    json_object_get_size(json_node_get_object(params)) == 0)
		return TRUE;
	/* the reference names any number just "number" here */
	if (JSON_NODE_HOLDS_VALUE(params) && (json_node_get_value_type(params) == G_TYPE_INT64 ||
					      json_node_get_value_type(params) == G_TYPE_DOUBLE)) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "invalid type: number, expected unit");
		return FALSE;
	}
	return erpc_json_type_error(params, "unit", error);
}

/**
 * erpc_json_params_object:
 * @params: (nullable): the params of a request
 * @struct_name: the name of the params type, for the error message
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer none): the params object, or %NULL with
 *   %ERPC_ERROR_INVALID_PARAMS set when @params is missing or not an object
 *
 * Since: 0.1
 */
JsonObject *
erpc_json_params_object(JsonNode *params, const gchar *struct_name, GError **error)
{
	g_autofree gchar *expected = NULL;

	if (params != NULL && JSON_NODE_HOLDS_OBJECT(params))
		return json_node_get_object(params);
	expected = g_strdup_printf("struct %s", struct_name);
	erpc_json_type_error(params, expected, error);
	return NULL;
}

/* returns the member, NULL when absent or null */
static JsonNode *
erpc_json_member(JsonObject *obj, const gchar *member)
{
	JsonNode *node = json_object_get_member(obj, member);
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return NULL;
	return node;
}

static gboolean
erpc_json_node_is(JsonNode *node, GType type)
{
	return JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == type;
}

/**
 * erpc_json_require_string:
 * @obj: a params object
 * @member: the member name
 * @out: (out) (transfer none): the value, owned by @obj
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE if @member is present and a string
 *
 * Since: 0.1
 */
gboolean
erpc_json_require_string(JsonObject *obj, const gchar *member, const gchar **out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, member);
	if (node == NULL)
		return erpc_json_missing(member, error);
	if (!erpc_json_node_is(node, G_TYPE_STRING))
		return erpc_json_type_error(node, "a string", error);
	*out = json_node_get_string(node);
	return TRUE;
}

/**
 * erpc_json_get_string:
 * @obj: a params object
 * @member: the member name
 * @default_value: (nullable): the value when @member is absent or null
 * @out: (out) (transfer none): the value
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE if @member is present with another type
 *
 * Since: 0.1
 */
gboolean
erpc_json_get_string(JsonObject *obj,
		     const gchar *member,
		     const gchar *default_value,
		     const gchar **out,
		     GError **error)
{
	JsonNode *node = erpc_json_member(obj, member);
	if (node == NULL) {
		*out = default_value;
		return TRUE;
	}
	if (!erpc_json_node_is(node, G_TYPE_STRING))
		return erpc_json_type_error(node, "a string", error);
	*out = json_node_get_string(node);
	return TRUE;
}

/**
 * erpc_json_require_boolean:
 * @obj: a params object
 * @member: the member name
 * @out: (out): the value
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE if @member is present and a boolean
 *
 * Since: 0.1
 */
gboolean
erpc_json_require_boolean(JsonObject *obj, const gchar *member, gboolean *out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, member);
	if (node == NULL)
		return erpc_json_missing(member, error);
	if (!erpc_json_node_is(node, G_TYPE_BOOLEAN))
		return erpc_json_type_error(node, "a boolean", error);
	*out = json_node_get_boolean(node);
	return TRUE;
}

/**
 * erpc_json_get_boolean:
 * @obj: a params object
 * @member: the member name
 * @default_value: the value when @member is absent or null
 * @out: (out): the value
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE if @member is present with another type
 *
 * Since: 0.1
 */
gboolean
erpc_json_get_boolean(JsonObject *obj,
		      const gchar *member,
		      gboolean default_value,
		      gboolean *out,
		      GError **error)
{
	JsonNode *node = erpc_json_member(obj, member);
	if (node == NULL) {
		*out = default_value;
		return TRUE;
	}
	if (!erpc_json_node_is(node, G_TYPE_BOOLEAN))
		return erpc_json_type_error(node, "a boolean", error);
	*out = json_node_get_boolean(node);
	return TRUE;
}

static gboolean
erpc_json_node_to_int64(JsonNode *node, gint64 *out, GError **error)
{
	if (!erpc_json_node_is(node, G_TYPE_INT64))
		return erpc_json_type_error(node, "i64", error);
	*out = json_node_get_int(node);
	return TRUE;
}

static gboolean
erpc_json_node_to_uint64(JsonNode *node, guint64 *out, GError **error)
{
	gint64 value;

	if (!erpc_json_node_is(node, G_TYPE_INT64))
		return erpc_json_type_error(node, "u64", error);
	value = json_node_get_int(node);
	if (value < 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "invalid value: integer `%" G_GINT64_FORMAT "`, expected u64",
			    value);
		return FALSE;
	}
	*out = (guint64)value;
	return TRUE;
}

/**
 * erpc_json_require_int64:
 * @obj: a params object
 * @member: the member name
 * @out: (out): the value
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE if @member is present and an integer
 *
 * Since: 0.1
 */
gboolean
erpc_json_require_int64(JsonObject *obj, const gchar *member, gint64 *out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, member);
	if (node == NULL)
		return erpc_json_missing(member, error);
	return erpc_json_node_to_int64(node, out, error);
}

/**
 * erpc_json_get_int64:
 * @obj: a params object
 * @member: the member name
 * @default_value: the value when @member is absent or null
 * @out: (out): the value
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE if @member is present and not an integer
 *
 * Since: 0.1
 */
gboolean
erpc_json_get_int64(JsonObject *obj,
		    const gchar *member,
		    gint64 default_value,
		    gint64 *out,
		    GError **error)
{
	JsonNode *node = erpc_json_member(obj, member);
	if (node == NULL) {
		*out = default_value;
		return TRUE;
	}
	return erpc_json_node_to_int64(node, out, error);
}

/**
 * erpc_json_require_uint64:
 * @obj: a params object
 * @member: the member name
 * @out: (out): the value
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE if @member is present and a non-negative integer
 *
 * Since: 0.1
 */
gboolean
erpc_json_require_uint64(JsonObject *obj, const gchar *member, guint64 *out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, member);
	if (node == NULL)
		return erpc_json_missing(member, error);
	return erpc_json_node_to_uint64(node, out, error);
}

/**
 * erpc_json_get_uint64:
 * @obj: a params object
 * @member: the member name
 * @default_value: the value when @member is absent or null
 * @out: (out): the value
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE if @member is present and not a non-negative integer
 *
 * Since: 0.1
 */
gboolean
erpc_json_get_uint64(JsonObject *obj,
		     const gchar *member,
		     guint64 default_value,
		     guint64 *out,
		     GError **error)
{
	JsonNode *node = erpc_json_member(obj, member);
	if (node == NULL) {
		*out = default_value;
		return TRUE;
	}
	return erpc_json_node_to_uint64(node, out, error);
}

/**
 * erpc_json_require_object:
 * @obj: a params object
 * @member: the member name
 * @out: (out) (transfer none): the value
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE if @member is present and an object
 *
 * Since: 0.1
 */
gboolean
erpc_json_require_object(JsonObject *obj, const gchar *member, JsonObject **out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, member);
	if (node == NULL)
		return erpc_json_missing(member, error);
	if (!JSON_NODE_HOLDS_OBJECT(node))
		return erpc_json_type_error(node, "a map", error);
	*out = json_node_get_object(node);
	return TRUE;
}

/**
 * erpc_json_get_object:
 * @obj: a params object
 * @member: the member name
 * @out: (out) (transfer none) (nullable): the value, %NULL when absent or null
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE if @member is present and not an object
 *
 * Since: 0.1
 */
gboolean
erpc_json_get_object(JsonObject *obj, const gchar *member, JsonObject **out, GError **error)
{
	JsonNode *node = erpc_json_member(obj, member);
	*out = NULL;
	if (node == NULL)
		return TRUE;
	if (!JSON_NODE_HOLDS_OBJECT(node))
		return erpc_json_type_error(node, "a map", error);
	*out = json_node_get_object(node);
	return TRUE;
}

/**
 * erpc_json_require_array:
 * @obj: a params object
 * @member: the member name
 * @out: (out) (transfer none): the value
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE if @member is present and an array
 *
 * Since: 0.1
 */
gboolean
erpc_json_require_array(JsonObject *obj, const gchar *member, JsonArray **out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, member);
	if (node == NULL)
		return erpc_json_missing(member, error);
	if (!JSON_NODE_HOLDS_ARRAY(node))
		return erpc_json_type_error(node, "a sequence", error);
	*out = json_node_get_array(node);
	return TRUE;
}

/**
 * erpc_json_get_array:
 * @obj: a params object
 * @member: the member name
 * @out: (out) (transfer none) (nullable): the value, %NULL when absent or null
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE if @member is present and not an array
 *
 * Since: 0.1
 */
gboolean
erpc_json_get_array(JsonObject *obj, const gchar *member, JsonArray **out, GError **error)
{
	JsonNode *node = erpc_json_member(obj, member);
	*out = NULL;
	if (node == NULL)
		return TRUE;
	if (!JSON_NODE_HOLDS_ARRAY(node))
		return erpc_json_type_error(node, "a sequence", error);
	*out = json_node_get_array(node);
	return TRUE;
}

/**
 * erpc_json_require_strv:
 * @obj: a params object
 * @member: the member name
 * @out: (out) (transfer full): the strings
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE if @member is an array of strings
 *
 * Since: 0.1
 */
gboolean
erpc_json_require_strv(JsonObject *obj, const gchar *member, gchar ***out, GError **error)
{
	JsonArray *array = NULL;
	g_autoptr(GPtrArray) strv = NULL;
	guint len;

	if (!erpc_json_require_array(obj, member, &array, error))
		return FALSE;
	len = json_array_get_length(array);
	strv = g_ptr_array_new_full(len + 1, g_free);
	for (guint i = 0; i < len; i++) {
		JsonNode *node = json_array_get_element(array, i);
		if (!erpc_json_node_is(node, G_TYPE_STRING))
			return erpc_json_type_error(node, "a string", error);
		g_ptr_array_add(strv, g_strdup(json_node_get_string(node)));
	}
	g_ptr_array_add(strv, NULL);
	*out = (gchar **)g_ptr_array_free(g_steal_pointer(&strv), FALSE);
	return TRUE;
}

static void
erpc_json_append_expected(GString *out, const gchar *const *variants)
{
	guint n = g_strv_length((gchar **)variants);

	if (n == 0) {
		g_string_append(out, "there are no variants");
		return;
	}
	if (n == 1) {
		g_string_append_printf(out, "expected `%s`", variants[0]);
		return;
	}
	if (n == 2) {
		g_string_append_printf(out, "expected `%s` or `%s`", variants[0], variants[1]);
		return;
	}
	g_string_append(out, "expected one of ");
	for (guint i = 0; i < n; i++)
		g_string_append_printf(out, "%s`%s`", i > 0 ? ", " : "", variants[i]);
}

/**
 * erpc_json_get_enum:
 * @obj: a params object
 * @member: the member name
 * @variants: (array zero-terminated=1): the accepted strings
 * @default_value: the index when @member is absent or null; -1 to require it
 * @out: (out): the index of the value in @variants
 * @error: return location for a #GError, or %NULL
 *
 * Unknown strings are refused with the protocol's `unknown variant` error.
 *
 * Returns: %TRUE if @member names one of @variants
 *
 * Since: 0.1
 */
gboolean
erpc_json_get_enum(JsonObject *obj,
		   const gchar *member,
		   const gchar *const *variants,
		   gint default_value,
		   gint *out,
		   GError **error)
{
	JsonNode *node =
	    default_value < 0 ? json_object_get_member(obj, member) : erpc_json_member(obj, member);
	const gchar *value;
	g_autoptr(GString) msg = NULL;
	g_autofree gchar *shown = NULL;

	if (node == NULL) {
		if (default_value < 0)
			return erpc_json_missing(member, error);
		*out = default_value;
		return TRUE;
	}
	if (!erpc_json_node_is(node, G_TYPE_STRING))
		return erpc_json_type_error(node, "a string", error);
	value = json_node_get_string(node);
	for (guint i = 0; variants[i] != NULL; i++) {
		if (g_strcmp0(variants[i], value) == 0) {
			*out = (gint)i;
			return TRUE;
		}
	}
	/* cut on a character boundary: the message must stay UTF-8 */
	shown = g_utf8_strlen(value, -1) > ERPC_JSON_DESCRIBE_MAX
		    ? g_utf8_substring(value, 0, ERPC_JSON_DESCRIBE_MAX)
		    : g_strdup(value);
	msg = g_string_new(NULL);
	g_string_append_printf(msg, "unknown variant `%s`, ", shown);
	erpc_json_append_expected(msg, variants);
	g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS, msg->str);
	return FALSE;
}

/**
 * erpc_json_append_string:
 * @out: a #GString
 * @str: UTF-8 text
 * @len: length of @str, or -1 if it is NUL-terminated
 *
 * Appends @str as a quoted JSON string, escaping quotes, backslashes and
 * control characters.
 *
 * Since: 0.1
 */
void
erpc_json_append_string(GString *out, const gchar *str, gssize len)
{
	static const gchar hex[] = "0123456789abcdef";
	gsize n = len < 0 ? strlen(str) : (gsize)len;
	gsize start = 0;
	g_autofree gchar *valid = NULL;

	/* what we send is UTF-8 whatever we were given: bad sequences become U+FFFD */
	if (!g_utf8_validate_len(str, n, NULL)) {
		valid = g_utf8_make_valid(str, (gssize)n);
		str = valid;
		n = strlen(valid);
	}

	g_string_append_c(out, '"');
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
	g_string_append_c(out, '"');
}

static void
erpc_json_append_value(GString *out, JsonNode *node)
{
	switch (json_node_get_value_type(node)) {
	case G_TYPE_BOOLEAN:
		g_string_append(out, json_node_get_boolean(node) ? "true" : "false");
		break;
	case G_TYPE_INT64:
		g_string_append_printf(out, "%" G_GINT64_FORMAT, json_node_get_int(node));
		break;
	case G_TYPE_DOUBLE: {
		gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
		gdouble value = json_node_get_double(node);
		/* JSON has no infinities or NaN: written as null, as serde_json does */
		if (!isfinite(value)) {
			g_string_append(out, "null");
			break;
		}
		g_string_append(out, g_ascii_dtostr(buf, sizeof(buf), value));
		break;
	}
	case G_TYPE_STRING:
		erpc_json_append_string(out, json_node_get_string(node), -1);
		break;
	default:
		g_string_append(out, "null");
		break;
	}
}

/**
 * erpc_json_append_node:
 * @out: a #GString
 * @node: (nullable): a node; %NULL is written as `null`
 *
 * Appends @node as compact JSON, object members in insertion order.
 *
 * Since: 0.1
 */
void
erpc_json_append_node(GString *out, JsonNode *node)
{
	if (node == NULL) {
		g_string_append(out, "null");
		return;
	}
	switch (JSON_NODE_TYPE(node)) {
	case JSON_NODE_OBJECT: {
		JsonObjectIter iter;
		const gchar *name;
		JsonNode *member;
		gboolean first = TRUE;

		g_string_append_c(out, '{');
		json_object_iter_init_ordered(&iter, json_node_get_object(node));
		while (json_object_iter_next_ordered(&iter, &name, &member)) {
			if (!first)
				g_string_append_c(out, ',');
			first = FALSE;
			erpc_json_append_string(out, name, -1);
			g_string_append_c(out, ':');
			erpc_json_append_node(out, member);
		}
		g_string_append_c(out, '}');
		break;
	}
	case JSON_NODE_ARRAY: {
		JsonArray *array = json_node_get_array(node);
		guint len = json_array_get_length(array);

		g_string_append_c(out, '[');
		for (guint i = 0; i < len; i++) {
			if (i > 0)
				g_string_append_c(out, ',');
			erpc_json_append_node(out, json_array_get_element(array, i));
		}
		g_string_append_c(out, ']');
		break;
	}
	case JSON_NODE_VALUE:
		erpc_json_append_value(out, node);
		break;
	case JSON_NODE_NULL:
	default:
		g_string_append(out, "null");
		break;
	}
}

/**
 * erpc_json_to_string:
 * @node: (nullable): a node
 *
 * Returns: (transfer full): @node as compact JSON
 *
 * Since: 0.1
 */
gchar *
erpc_json_to_string(JsonNode *node)
{
	GString *out = g_string_new(NULL);
	erpc_json_append_node(out, node);
	return g_string_free(out, FALSE);
}
