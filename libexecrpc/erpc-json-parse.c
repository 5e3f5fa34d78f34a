/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "erpc-error.h"
#include "erpc-json-private.h"
#include "erpc-json.h"

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

/*
 * The tree of a text the scan has accepted, built directly: json-glib's
 * parser costs a scanner, a GString per token and signal emissions per
 * member, which made it most of the CPU of a small request. Strict JSON
 * only; anything else (or anything unusual: a lone surrogate, \u0000, a
 * number out of range) returns NULL and the text goes to json-glib, so what
 * is accepted and the errors are the same. Members are set as json-glib
 * sets them (a repeated name keeps its place and takes the last value).
 */

typedef struct {
	const gchar *p;
	const gchar *end;
	GString *scratch; /* the string being read */
} ErpcJsonBuild;

static inline void
erpc_json_build_skip_ws(ErpcJsonBuild *b)
{
	while (b->p < b->end && (*b->p == ' ' || *b->p == '\n' || *b->p == '\r' || *b->p == '\t'))
		b->p++;
}

static gint
erpc_json_build_hex4(const gchar *p)
{
	gint v = 0;
	for (guint i = 0; i < 4; i++) {
		gint d = g_ascii_xdigit_value(p[i]);
		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

/* the string after the opening quote at b->p, decoded onto @out */
static gboolean
erpc_json_build_string(ErpcJsonBuild *b, GString *out)
{
	const gchar *q = ++b->p;

	for (;;) {
		const gchar *run = q;
		gint u;

		while (q < b->end && *q != '"' && *q != '\\' && (guchar)*q >= 0x20)
			q++;
		g_string_append_len(out, run, q - run);
		if (q >= b->end || (guchar)*q < 0x20)
			return FALSE;
		if (*q == '"')
			break;
		if (q + 1 >= b->end)
			return FALSE;
		switch (q[1]) {
		case '"':
		case '\\':
		case '/':
			g_string_append_c(out, q[1]);
			q += 2;
			continue;
		case 'b':
			g_string_append_c(out, '\b');
			q += 2;
			continue;
		case 'f':
			g_string_append_c(out, '\f');
			q += 2;
			continue;
		case 'n':
			g_string_append_c(out, '\n');
			q += 2;
			continue;
		case 'r':
			g_string_append_c(out, '\r');
			q += 2;
			continue;
		case 't':
			g_string_append_c(out, '\t');
			q += 2;
			continue;
		case 'u':
			break;
		default:
			return FALSE;
		}
		/* \u0000 and lone surrogates are the rewrite's business */
		if (b->end - q < 6 || (u = erpc_json_build_hex4(q + 2)) <= 0 ||
		    (u >= 0xdc00 && u <= 0xdfff))
			return FALSE;
		q += 6;
		if (u >= 0xd800 && u <= 0xdbff) {
			gint lo;
			if (b->end - q < 6 || q[0] != '\\' || q[1] != 'u' ||
			    (lo = erpc_json_build_hex4(q + 2)) < 0xdc00 || lo > 0xdfff)
				return FALSE;
			q += 6;
			u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
		}
		g_string_append_unichar(out, (gunichar)u);
	}
	b->p = q + 1;
	return TRUE;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static JsonNode *
erpc_json_build_number(ErpcJsonBuild *b)
{
	const gchar *start = b->p;
	const gchar *q = b->p;
	gboolean is_float = FALSE;
	gchar buf[64];
	gchar *endp = NULL;

	if (q < b->end && *q == '-')
		q++;
	if (q >= b->end || !g_ascii_isdigit(*q))
		return NULL;
	if (*q == '0')
		q++;
	else
		while (q < b->end && g_ascii_isdigit(*q))
			q++;
	if (q < b->end && *q == '.') {
		is_float = TRUE;
		q++;
		if (q >= b->end || !g_ascii_isdigit(*q))
			return NULL;
		while (q < b->end && g_ascii_isdigit(*q))
			q++;
	}
	if (q < b->end && (*q == 'e' || *q == 'E')) {
		is_float = TRUE;
		q++;
		if (q < b->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= b->end || !g_ascii_isdigit(*q))
			return NULL;
		while (q < b->end && g_ascii_isdigit(*q))
			q++;
	}
	/* long numbers are rare: json-glib reads them */
	if (q - start >= (gssize)sizeof(buf))
		return NULL;
	memcpy(buf, start, (gsize)(q - start));
	buf[q - start] = '\0';
	b->p = q;
	errno = 0;
	if (is_float) {
		gdouble v = g_ascii_strtod(buf, &endp);
		if (errno != 0 || *endp != '\0' || !isfinite(v))
			return NULL;
		return json_node_init_double(json_node_alloc(), v);
	} else {
		gint64 v = g_ascii_strtoll(buf, &endp, 10);
		if (errno != 0 || *endp != '\0')
			return NULL;
		return json_node_init_int(json_node_alloc(), v);
	}
}

/* deeper than the scan lets through anyway */
#define ERPC_JSON_BUILD_MAX_DEPTH 1024

static JsonNode *
erpc_json_build_value(ErpcJsonBuild *b, guint depth);

static JsonNode *
erpc_json_build_object(ErpcJsonBuild *b, guint depth)
{
	g_autoptr(JsonNode) node = json_node_new(JSON_NODE_OBJECT);
	JsonObject *object = json_object_new();

	json_node_take_object(node, object);
	b->p++;
	erpc_json_build_skip_ws(b);
	if (b->p < b->end && *b->p == '}') {
		b->p++;
		return g_steal_pointer(&node);
	}
	for (;;) {
		g_autofree gchar *long_name = NULL;
		gchar short_name[64];
		const gchar *name = short_name;
		JsonNode *member;

		if (b->p >= b->end || *b->p != '"')
			return NULL;
		g_string_truncate(b->scratch, 0);
		if (!erpc_json_build_string(b, b->scratch))
			return NULL;
		/* kept apart from the scratch string, which the value needs */
		if (b->scratch->len < sizeof(short_name))
			memcpy(short_name, b->scratch->str, b->scratch->len + 1);
		else
			name = long_name = g_strdup(b->scratch->str);
		erpc_json_build_skip_ws(b);
		if (b->p >= b->end || *b->p != ':')
			return NULL;
		b->p++;
		erpc_json_build_skip_ws(b);
		member = erpc_json_build_value(b, depth + 1);
		if (member == NULL)
			return NULL;
		json_node_set_parent(member, node);
		json_object_set_member(object, name, member);
		erpc_json_build_skip_ws(b);
		if (b->p < b->end && *b->p == ',') {
			b->p++;
			erpc_json_build_skip_ws(b);
			continue;
		}
		if (b->p < b->end && *b->p == '}') {
			b->p++;
			return g_steal_pointer(&node);
		}
		return NULL;
	}
}

static JsonNode *
erpc_json_build_array(ErpcJsonBuild *b, guint depth)
{
	g_autoptr(JsonNode) node = json_node_new(JSON_NODE_ARRAY);
	JsonArray *array = json_array_new();

	json_node_take_array(node, array);
	b->p++;
	erpc_json_build_skip_ws(b);
	if (b->p < b->end && *b->p == ']') {
		b->p++;
		return g_steal_pointer(&node);
	}
	for (;;) {
		JsonNode *element = erpc_json_build_value(b, depth + 1);
		if (element == NULL)
			return NULL;
		json_node_set_parent(element, node);
		json_array_add_element(array, element);
		erpc_json_build_skip_ws(b);
		if (b->p < b->end && *b->p == ',') {
			b->p++;
			erpc_json_build_skip_ws(b);
			continue;
		}
		if (b->p < b->end && *b->p == ']') {
			b->p++;
			return g_steal_pointer(&node);
		}
		return NULL;
	}
}

static gboolean
erpc_json_build_word(ErpcJsonBuild *b, const gchar *word, gsize len)
{
	if ((gsize)(b->end - b->p) < len || memcmp(b->p, word, len) != 0)
		return FALSE;
	b->p += len;
	return TRUE;
}

static JsonNode *
erpc_json_build_value(ErpcJsonBuild *b, guint depth)
{
	if (b->p >= b->end || depth > ERPC_JSON_BUILD_MAX_DEPTH)
		return NULL;
	switch (*b->p) {
	case '{':
		return erpc_json_build_object(b, depth);
	case '[':
		return erpc_json_build_array(b, depth);
	case '"':
		g_string_truncate(b->scratch, 0);
		if (!erpc_json_build_string(b, b->scratch))
			return NULL;
		return json_node_init_string(json_node_alloc(), b->scratch->str);
	case 't':
		return erpc_json_build_word(b, "true", 4)
			   ? json_node_init_boolean(json_node_alloc(), TRUE)
			   : NULL;
	case 'f':
		return erpc_json_build_word(b, "false", 5)
			   ? json_node_init_boolean(json_node_alloc(), FALSE)
			   : NULL;
	case 'n':
		return erpc_json_build_word(b, "null", 4) ? json_node_init_null(json_node_alloc())
							  : NULL;
	default:
		return erpc_json_build_number(b);
	}
}

/* the tree of a whole text holding one object, or NULL for json-glib to read it */
static JsonNode *
erpc_json_build(const gchar *data, gsize len, gboolean seal)
{
	g_autoptr(GString) scratch = g_string_sized_new(256);
	ErpcJsonBuild b = {data, data + len, scratch};
	JsonNode *root;

	erpc_json_build_skip_ws(&b);
	if (b.p >= b.end || *b.p != '{')
		return NULL;
	root = erpc_json_build_object(&b, 0);
	if (root == NULL)
		return NULL;
	erpc_json_build_skip_ws(&b);
	if (b.p != b.end) {
		json_node_unref(root);
		return NULL;
	}
	if (seal)
		json_node_seal(root);
	return root;
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

/* text the scan has accepted: a mutable tree can be changed, as blobs are put back */
static JsonNode *
erpc_json_parse_accepted(const gchar *data, gsize len, gboolean mutable, GError **error)
{
	g_autoptr(JsonParser) parser = NULL;
	JsonNode *root = erpc_json_build(data, len, !mutable);

	if (root != NULL)
		return root;
	if (!mutable)
		return erpc_json_parse_text(erpc_json_get_parser(), data, len, error);
	parser = json_parser_new();
	return erpc_json_parse_text(parser, data, len, error);
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
	g_autofree gchar *nonce = NULL;
	ErpcJsonBlobs *found;
	JsonNode *root;
	gsize pos = 0;
	guint n_big = 0;

	if (spans == NULL)
		return erpc_json_parse_accepted(data, len, mutable, error);

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
		return erpc_json_parse_accepted(reduced->str, reduced->len, FALSE, error);
	/* a mutable tree, so that the strings can be put back */
	root = erpc_json_parse_accepted(reduced->str, reduced->len, TRUE, error);
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
		      const ErpcJsonPlainMap *plain,
		      gboolean *clamped,
		      ErpcJsonBlobs **blobs,
		      GError **soft,
		      gboolean *id_bad,
		      GError **error)
{
	g_auto(ErpcJsonScan) scan = {.plain = plain, .want_spans = TRUE, .want_big = TRUE};
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
	if (!_erpc_json_scan(data, len, max_size, max_depth, &scan, error))
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
	if (!_erpc_json_scan(text->str, text->len, G_MAXSIZE, max_depth, &again, error))
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
	return _erpc_json_parse_full(data,
				     len,
				     max_size,
				     max_depth,
				     NULL,
				     NULL,
				     NULL,
				     NULL,
				     NULL,
				     error);
}
