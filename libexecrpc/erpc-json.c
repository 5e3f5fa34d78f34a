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

/* what the scan found besides hard errors */
typedef struct {
	GArray *spans; /* big strings and wide numbers, when wanted */
	gboolean want_spans;
	gboolean want_big; /* big strings too */
	GError *soft;	   /* the first problem inside a string: the message is still read */
	gsize soft_pos;
	gboolean rewrite; /* escaped NULs, soft problems or numbers beyond a double */
} ErpcJsonScan;

static void
erpc_json_scan_clear(ErpcJsonScan *scan)
{
	g_clear_pointer(&scan->spans, g_array_unref);
	g_clear_error(&scan->soft);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(ErpcJsonScan, erpc_json_scan_clear)

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

		i += erpc_json_skip_plain(data + i, len - i);
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

static gboolean
erpc_json_scan(const gchar *data,
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

	if (!erpc_json_scan(data, len, max_size, max_depth, &scan, error))
		return FALSE;
	if (scan.soft != NULL) {
		g_propagate_error(error, g_steal_pointer(&scan.soft));
		return FALSE;
	}
	return TRUE;
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
 * Parses text the scan has accepted, with what it noted in @spans (taken).
 * With @blobs, big strings stay placeholders and *@blobs tells where their
 * text is in @data, which the caller keeps alive; without, they are put back.
 */
static JsonNode *
erpc_json_parse_spans(const gchar *data,
		      gsize len,
		      GArray *spans_in,
		      gboolean mutable,
		      gboolean *clamped,
		      ErpcJsonBlobs **blobs,
		      GError **error)
{
	g_autoptr(GArray) spans = spans_in;
	g_autoptr(GString) reduced = NULL;
	g_autoptr(JsonParser) parser = NULL;
	g_autofree gchar *nonce = NULL;
	ErpcJsonBlobs *found;
	JsonNode *root;
	gsize pos = 0;
	guint n_big = 0;

	if (spans == NULL && !mutable)
		return erpc_json_parse_text(erpc_json_get_parser(), data, len, error);
	if (spans == NULL) {
		parser = json_parser_new();
		return erpc_json_parse_text(parser, data, len, error);
	}

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
	if (n_big == 0 && !mutable)
		return erpc_json_parse_text(erpc_json_get_parser(),
					    reduced->str,
					    reduced->len,
					    error);
	/* a mutable tree, so that the strings can be put back */
	parser = json_parser_new();
	root = erpc_json_parse_text(parser, reduced->str, reduced->len, error);
	if (root == NULL || n_big == 0)
		return root;
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

/*
 * For erpc_message_parse(): also tells whether an integer was clamped, and
 * keeps big strings in @data with @blobs (see erpc_json_parse_spans()).
 * With @soft, a text whose only problems are inside strings (a lone
 * surrogate, an unknown escape, a raw control character, a byte that is
 * not UTF-8) is parsed too, its bad strings read as U+FFFD, and *@soft
 * names the first problem; *@id_bad tells whether the `id` member of the
 * top-level object was one of them. Without @soft, such text is refused.
 */
JsonNode *
_erpc_json_parse_full(const gchar *data,
		      gsize len,
		      gsize max_size,
		      guint max_depth,
		      gboolean *clamped,
		      ErpcJsonBlobs **blobs,
		      GError **soft,
		      gboolean *id_bad,
		      GError **error)
{
	g_auto(ErpcJsonScan) scan = {.want_spans = TRUE, .want_big = TRUE};
	g_auto(ErpcJsonScan) again = {.want_spans = TRUE};
	g_autoptr(GString) text = NULL;
	g_autoptr(GError) parse_error = NULL;
	JsonNode *root;

	if (clamped != NULL)
		*clamped = FALSE;
	if (blobs != NULL)
		*blobs = NULL;
	if (id_bad != NULL)
		*id_bad = FALSE;
	if (!erpc_json_scan(data, len, max_size, max_depth, &scan, error))
		return NULL;
	if (scan.soft != NULL && soft == NULL) {
		g_propagate_error(error, g_steal_pointer(&scan.soft));
		return NULL;
	}
	if (!scan.rewrite)
		return erpc_json_parse_spans(data,
					     len,
					     g_steal_pointer(&scan.spans),
					     FALSE,
					     clamped,
					     blobs,
					     error);

	/* big strings of the rewritten text stay in the tree: they may hold doubled marks */
	text = _erpc_json_rewrite(data, len);
	if (!erpc_json_scan(text->str, text->len, G_MAXSIZE, max_depth, &again, error))
		return NULL;
	if (again.soft != NULL || again.rewrite) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "the message could not be rewritten for the parser");
		return NULL;
	}
	root = erpc_json_parse_spans(text->str,
				     text->len,
				     g_steal_pointer(&again.spans),
				     TRUE,
				     clamped,
				     NULL,
				     &parse_error);
	if (root == NULL) {
		g_autoptr(JsonNode) unexpected = NULL;
		/* the first problem, in the words and places of the text the peer sent */
		if (scan.soft != NULL) {
			g_propagate_error(error, g_steal_pointer(&scan.soft));
			return NULL;
		}
		unexpected = erpc_json_parse_text(erpc_json_get_parser(), data, len, error);
		if (unexpected != NULL)
			g_propagate_error(error, g_steal_pointer(&parse_error));
		return NULL;
	}
	_erpc_json_decode(root, id_bad);
	if (soft != NULL)
		*soft = g_steal_pointer(&scan.soft);
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
 * beyond 2^63-1 read as 2^63-1, numbers no double holds as NaN, and a
 * `\u0000` in a string as %ERPC_JSON_NUL (see erpc_json_string_has_nul()).
 *
 * Returns: (transfer full): the root node, or %NULL with %ERPC_ERROR_PARSE set
 *
 * Since: 0.1
 */
JsonNode *
erpc_json_parse(const gchar *data, gsize len, gsize max_size, guint max_depth, GError **error)
{
	return _erpc_json_parse_full(data, len, max_size, max_depth, NULL, NULL, NULL, NULL, error);
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

/* @str (@len bytes) as Rust's Debug shows a string, without the quotes */
static void
erpc_json_append_debug(GString *out, const gchar *str, gsize len)
{
	g_autofree gchar *valid = NULL;

	for (gsize i = 0; i < len; i++) {
		guchar c = (guchar)str[i];
		if (c == 0xc0 && i + 1 < len && (guchar)str[i + 1] == 0x80) {
			g_string_append(out, "\\0");
			i++;
		} else if (c == '"' || c == '\\') {
			g_string_append_c(out, '\\');
			g_string_append_c(out, (gchar)c);
		} else if (c == '\n') {
			g_string_append(out, "\\n");
		} else if (c == '\r') {
			g_string_append(out, "\\r");
		} else if (c == '\t') {
			g_string_append(out, "\\t");
		} else if (c < 0x20 || c == 0x7f) {
			g_string_append_printf(out, "\\u{%x}", c);
		} else {
			g_string_append_c(out, (gchar)c);
		}
	}
	/* what we send is UTF-8 whatever we were given */
	if (!g_utf8_validate(out->str, (gssize)out->len, NULL)) {
		valid = g_utf8_make_valid(out->str, (gssize)out->len);
		g_string_assign(out, valid);
	}
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
		g_autofree gchar *text = NULL;
		/* a number no double holds: the reference names no value */
		if (isnan(json_node_get_double(node)))
			return g_strdup("number");
		text = erpc_json_float_display(json_node_get_double(node));
		return g_strdup_printf("floating point `%s`", text);
	}
	case G_TYPE_STRING: {
		const gchar *str = json_node_get_string(node);
		g_autoptr(GString) out = g_string_new("string \"");
		gsize len = strlen(str);
		if (len > ERPC_JSON_DESCRIBE_MAX) {
			gsize cut = ERPC_JSON_DESCRIBE_MAX;
			/* back to the start of a character */
			while (cut > 0 && ((guchar)str[cut] & 0xc0) == 0x80)
				cut--;
			erpc_json_append_debug(out, str, cut);
			g_string_append(out, "...");
		} else {
			erpc_json_append_debug(out, str, len);
		}
		g_string_append_c(out, '"');
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
 * Checks that the params of a request are an object, as a method with a
 * params type expects.
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
 * Reads a required string member of a params object; a missing member or a
 * wrong type sets the protocol's `-32602` error.
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
 * Reads an optional string member of a params object; a wrong type sets the
 * protocol's `-32602` error.
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
 * Reads a required boolean member of a params object; a missing member or a
 * wrong type sets the protocol's `-32602` error.
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
 * Reads an optional boolean member of a params object; a wrong type sets
 * the protocol's `-32602` error.
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

/* a number no double holds, which the parser reads as NaN */
static gboolean
erpc_json_node_is_wide(JsonNode *node, GError **error)
{
	if (!erpc_json_node_is(node, G_TYPE_DOUBLE) || !isnan(json_node_get_double(node)))
		return FALSE;
	g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS, "invalid number");
	return TRUE;
}

static gboolean
erpc_json_node_to_int64(JsonNode *node, gint64 *out, GError **error)
{
	if (erpc_json_node_is_wide(node, error))
		return FALSE;
	if (!erpc_json_node_is(node, G_TYPE_INT64))
		return erpc_json_type_error(node, "i64", error);
	*out = json_node_get_int(node);
	return TRUE;
}

static gboolean
erpc_json_node_to_uint64(JsonNode *node, guint64 *out, GError **error)
{
	gint64 value;

	if (erpc_json_node_is_wide(node, error))
		return FALSE;
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
 * Reads a required integer member of a params object; a missing member or a
 * wrong type sets the protocol's `-32602` error.
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
 * Reads an optional integer member of a params object; a wrong type sets
 * the protocol's `-32602` error.
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
 * Reads a required non-negative integer member of a params object; a
 * missing member or a wrong type sets the protocol's `-32602` error.
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
 * Reads an optional non-negative integer member of a params object; a wrong
 * type sets the protocol's `-32602` error.
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
 * Reads a required object member of a params object; a missing member or a
 * wrong type sets the protocol's `-32602` error.
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
 * Reads an optional object member of a params object; a wrong type sets the
 * protocol's `-32602` error.
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
 * Reads a required array member of a params object; a missing member or a
 * wrong type sets the protocol's `-32602` error.
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
 * Reads an optional array member of a params object.
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
 * Reads a required array of strings of a params object; a missing member or
 * a wrong type sets the protocol's `-32602` error.
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

/* @str as a quoted JSON string, from UTF-8 without ERPC_JSON_NUL */
static void
erpc_json_append_piece(GString *out, const gchar *str, gsize n)
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

/**
 * erpc_json_append_string:
 * @out: a #GString
 * @str: UTF-8 text
 * @len: length of @str, or -1 if it is NUL-terminated
 *
 * Appends @str as a quoted JSON string, escaping quotes, backslashes and
 * control characters; %ERPC_JSON_NUL is written as `\u0000`.
 *
 * Since: 0.1
 */
void
erpc_json_append_string(GString *out, const gchar *str, gssize len)
{
	gsize n = len < 0 ? strlen(str) : (gsize)len;
	const gchar *nul;

	g_string_append_c(out, '"');
	while ((nul = memmem(str, n, ERPC_JSON_NUL, 2)) != NULL) {
		erpc_json_append_piece(out, str, (gsize)(nul - str));
		g_string_append(out, "\\u0000");
		n -= (gsize)(nul - str) + 2;
		str = nul + 2;
	}
	erpc_json_append_piece(out, str, n);
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
 * Writes a node as JSON text.
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
