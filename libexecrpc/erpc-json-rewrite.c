/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <math.h>
#include <string.h>

#include "erpc-json-private.h"
#include "erpc-json.h"

/*
 * What json-glib 1.6 cannot carry: it ends a string at an escaped NUL, has
 * no value for a number beyond the doubles, and misreads a lone surrogate.
 * A request holding one of these must still be read, to be answered with
 * its own id. Such text is rewritten before json-glib sees it, with U+FDD0
 * (a noncharacter, set aside for internal use) as an escape character:
 *
 *   \u0000                     MARK '0'        read back as ERPC_JSON_NUL
 *   U+FDD0, raw or \ufdd0      MARK MARK       read back as U+FDD0
 *   a bad sequence in a string MARK '!'        once per string, read back as U+FFFD
 *   a number beyond a double   "MARK '#'"      read back as a NaN double
 *
 * Parsed strings carry NUL as the overlong sequence C0 80 (as modified
 * UTF-8 does), which no valid input holds and no C function stops at.
 */

#define ERPC_JSON_MARK	   "\xef\xb7\x90"
#define ERPC_JSON_MARK_LEN 3

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

/* a bad escape: the reference's message, and the byte it had read when it stopped */
static ErpcJsonEscape
erpc_json_escape_bad(const gchar **why, gsize *where, const gchar *message, gsize stop)
{
	if (why != NULL)
		*why = message;
	if (where != NULL)
		*where = stop;
	return ERPC_JSON_ESCAPE_BAD;
}

/*
 * The escape at data[pos] (a backslash): what it is, and *end, the first
 * byte after it. A bad escape ends where the text can go on being read;
 * *why and *where are then the reference's message and the byte it had
 * read when it stopped.
 */
ErpcJsonEscape
_erpc_json_read_escape(const gchar *data,
		       gsize len,
		       gsize pos,
		       gsize *end,
		       const gchar **why,
		       gsize *where)
{
	gint unit;
	gint low;

	*end = pos + 2;
	if (pos + 1 >= len)
		return ERPC_JSON_ESCAPE_EOF;
	if (strchr("\"\\/bfnrt", data[pos + 1]) != NULL && data[pos + 1] != '\0')
		return ERPC_JSON_ESCAPE_PLAIN;
	if (data[pos + 1] != 'u')
		return erpc_json_escape_bad(why, where, "invalid escape", pos + 1);
	if (pos + 6 > len)
		return ERPC_JSON_ESCAPE_EOF;
	/* the reference reads four characters, then checks them */
	for (guint i = 0; i < 4; i++) {
		if (!g_ascii_isxdigit(data[pos + 2 + i])) {
			*end = pos + 2 + i;
			return erpc_json_escape_bad(why, where, "invalid escape", pos + 5);
		}
	}
	*end = pos + 6;
	unit = erpc_json_hex4(data + pos + 2);
	if (unit == 0)
		return ERPC_JSON_ESCAPE_NUL;
	if (unit == 0xfdd0)
		return ERPC_JSON_ESCAPE_MARK;
	if (unit >= 0xdc00 && unit <= 0xdfff)
		return erpc_json_escape_bad(why,
					    where,
					    "lone leading surrogate in hex escape",
					    pos + 5);
	if (unit < 0xd800 || unit > 0xdbff)
		return ERPC_JSON_ESCAPE_PLAIN;
	/* a leading surrogate: a trailing one must follow; what follows otherwise is read on */
	if (pos + 6 >= len)
		return ERPC_JSON_ESCAPE_EOF;
	if (data[pos + 6] != '\\')
		return erpc_json_escape_bad(why, where, "unexpected end of hex escape", pos + 6);
	if (pos + 7 >= len)
		return ERPC_JSON_ESCAPE_EOF;
	if (data[pos + 7] != 'u')
		return erpc_json_escape_bad(why, where, "unexpected end of hex escape", pos + 7);
	if (pos + 12 > len)
		return ERPC_JSON_ESCAPE_EOF;
	low = erpc_json_hex4(data + pos + 8);
	if (low < 0)
		return erpc_json_escape_bad(why, where, "invalid escape", pos + 11);
	if (low < 0xdc00 || low > 0xdfff)
		return erpc_json_escape_bad(why,
					    where,
					    "lone leading surrogate in hex escape",
					    pos + 11);
	*end = pos + 12;
	return ERPC_JSON_ESCAPE_PLAIN;
}

/*
 * Whether a double holds the number @token (JSON grammar, already checked):
 * neither beyond its range nor so small that it reads as zero
 */
gboolean
_erpc_json_number_fits(const gchar *token, gsize len)
{
	g_autofree gchar *text = g_strndup(token, len);
	gdouble value = g_ascii_strtod(text, NULL);

	if (!isfinite(value))
		return FALSE;
	if (value != 0)
		return TRUE;
	for (const gchar *p = text; *p != '\0' && *p != 'e' && *p != 'E'; p++) {
		if (*p >= '1' && *p <= '9')
			return FALSE;
	}
	return TRUE;
}

static gboolean
erpc_json_plain_byte(guchar c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* the string that starts at data[pos] (a quote); returns the first byte after it */
static gsize
erpc_json_rewrite_string(GString *out, const gchar *data, gsize len, gsize pos)
{
	gboolean bad = FALSE;
	gsize i = pos + 1;

	g_string_append_c(out, '"');
	while (i < len) {
		gsize run = i;
		guchar c;
		gunichar ch;

		while (run < len && erpc_json_plain_byte((guchar)data[run]))
			run++;
		g_string_append_len(out, data + i, (gssize)(run - i));
		i = run;
		if (i >= len)
			break;
		c = (guchar)data[i];
		if (c == '"') {
			g_string_append_c(out, '"');
			return i + 1;
		}
		if (c == '\\') {
			gsize end = i;
			switch (_erpc_json_read_escape(data, len, i, &end, NULL, NULL)) {
			case ERPC_JSON_ESCAPE_PLAIN:
				g_string_append_len(out, data + i, (gssize)(end - i));
				break;
			case ERPC_JSON_ESCAPE_NUL:
				g_string_append(out, ERPC_JSON_MARK "0");
				break;
			case ERPC_JSON_ESCAPE_MARK:
				g_string_append(out, ERPC_JSON_MARK ERPC_JSON_MARK);
				break;
			case ERPC_JSON_ESCAPE_BAD:
				if (!bad)
					g_string_append(out, ERPC_JSON_MARK "!");
				bad = TRUE;
				break;
			case ERPC_JSON_ESCAPE_EOF:
			default:
				/* the scan refused this text already */
				return len;
			}
			i = end;
			continue;
		}
		if (c >= 0x80 && i + ERPC_JSON_MARK_LEN <= len &&
		    memcmp(data + i, ERPC_JSON_MARK, ERPC_JSON_MARK_LEN) == 0) {
			g_string_append(out, ERPC_JSON_MARK ERPC_JSON_MARK);
			i += ERPC_JSON_MARK_LEN;
			continue;
		}
		ch = c >= 0x80 ? g_utf8_get_char_validated(data + i, (gssize)(len - i))
			       : (gunichar)-1;
		if (ch == (gunichar)-1 || ch == (gunichar)-2) {
			/* a raw control character or a byte that is not UTF-8 */
			if (!bad)
				g_string_append(out, ERPC_JSON_MARK "!");
			bad = TRUE;
			i++;
			continue;
		}
		g_string_append_len(out, data + i, g_utf8_skip[c]);
		i += g_utf8_skip[c];
	}
	return i;
}

/*
 * @data as json-glib can read it, for a text the scan has accepted: the
 * structure is the same, only strings and numbers change. Raw U+FDD0 grows
 * to twice its length, so the result is at most twice as long as @data.
 */
GString *
_erpc_json_rewrite(const gchar *data, gsize len)
{
	GString *out = g_string_sized_new(len + len / 8 + 16);
	gsize i = 0;

	while (i < len) {
		guchar c = (guchar)data[i];
		gsize end;

		if (c == '"') {
			i = erpc_json_rewrite_string(out, data, len, i);
			continue;
		}
		if (c != '-' && !g_ascii_isdigit(c)) {
			g_string_append_c(out, (gchar)c);
			i++;
			continue;
		}
		/* outside strings only numbers hold a digit or a minus */
		end = i;
		while (end < len &&
		       (g_ascii_isdigit(data[end]) || data[end] == '-' || data[end] == '+' ||
			data[end] == '.' || data[end] == 'e' || data[end] == 'E'))
			end++;
		if (_erpc_json_number_fits(data + i, end - i))
			g_string_append_len(out, data + i, (gssize)(end - i));
		else
			g_string_append(out, "\"" ERPC_JSON_MARK "#\"");
		i = end;
	}
	return out;
}

/* @text read back; *bad when it held a bad sequence, *number when it stands for a number */
static gchar *
erpc_json_decode_text(const gchar *text, gboolean *bad, gboolean *number)
{
	GString *out = g_string_sized_new(strlen(text));
	const gchar *p = text;
	const gchar *mark;

	while ((mark = strstr(p, ERPC_JSON_MARK)) != NULL) {
		const gchar *next = mark + ERPC_JSON_MARK_LEN;
		g_string_append_len(out, p, mark - p);
		if (strncmp(next, ERPC_JSON_MARK, ERPC_JSON_MARK_LEN) == 0) {
			g_string_append(out, ERPC_JSON_MARK);
			p = next + ERPC_JSON_MARK_LEN;
			continue;
		}
		if (*next == '0') {
			g_string_append(out, ERPC_JSON_NUL);
		} else if (*next == '!') {
			g_string_append(out, "\xef\xbf\xbd");
			*bad = TRUE;
		} else if (*next == '#' && mark == text && next[1] == '\0') {
			*number = TRUE;
		} else {
			/* cannot happen: every mark the rewrite writes is paired */
			g_string_append(out, ERPC_JSON_MARK);
			p = next;
			continue;
		}
		p = next + 1;
	}
	g_string_append(out, p);
	return g_string_free(out, FALSE);
}

/* reads back the marks under @node; TRUE if a string there held a bad sequence */
static gboolean
erpc_json_decode_node(JsonNode *node, gboolean *id_bad)
{
	gboolean bad = FALSE;

	if (JSON_NODE_HOLDS_OBJECT(node)) {
		JsonObject *obj = json_node_get_object(node);
		g_autoptr(JsonObject) renamed = NULL;
		JsonObjectIter iter;
		const gchar *name;
		JsonNode *member;

		json_object_iter_init_ordered(&iter, obj);
		while (json_object_iter_next_ordered(&iter, &name, &member)) {
			gboolean member_bad = erpc_json_decode_node(member, NULL);
			bad |= member_bad;
			if (id_bad != NULL && member_bad && g_strcmp0(name, "id") == 0)
				*id_bad = TRUE;
			if (renamed == NULL && strstr(name, ERPC_JSON_MARK) != NULL)
				renamed = json_object_new();
		}
		if (renamed == NULL)
			return bad;
		/* json-glib cannot rename a member: the object is built again, in order */
		json_object_iter_init_ordered(&iter, obj);
		while (json_object_iter_next_ordered(&iter, &name, &member)) {
			gboolean number = FALSE;
			g_autofree gchar *decoded = erpc_json_decode_text(name, &bad, &number);
			json_object_set_member(renamed, decoded, json_node_ref(member));
		}
		json_node_set_object(node, renamed);
		return bad;
	}
	if (JSON_NODE_HOLDS_ARRAY(node)) {
		JsonArray *array = json_node_get_array(node);
		for (guint i = 0; i < json_array_get_length(array); i++)
			bad |= erpc_json_decode_node(json_array_get_element(array, i), NULL);
		return bad;
	}
	if (JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == G_TYPE_STRING &&
	    strstr(json_node_get_string(node), ERPC_JSON_MARK) != NULL) {
		gboolean number = FALSE;
		g_autofree gchar *decoded =
		    erpc_json_decode_text(json_node_get_string(node), &bad, &number);
		/* in place: json_node_init_double() of json-glib 1.6 reads the value it freed */
		if (number)
			json_node_set_double(node, NAN);
		else
			json_node_set_string(node, decoded);
	}
	return bad;
}

/*
 * Reads back a tree parsed from _erpc_json_rewrite() text, which must be
 * mutable. *id_bad tells whether the `id` member of a top-level object held
 * a bad sequence.
 */
void
_erpc_json_decode(JsonNode *root, gboolean *id_bad)
{
	gboolean ignored = FALSE;
	erpc_json_decode_node(root, id_bad != NULL ? id_bad : &ignored);
}

/**
 * erpc_json_string_has_nul:
 * @str: (nullable): a string of a parsed message
 *
 * Parsed strings carry a NUL character (`\u0000`) as the two bytes
 * %ERPC_JSON_NUL, so that nothing stops early at it. A string bound for a
 * system call (a path, an argument, an environment entry) must be refused
 * when it holds one.
 *
 * Returns: %TRUE if @str holds a NUL character
 *
 * Since: 0.1
 */
gboolean
erpc_json_string_has_nul(const gchar *str)
{
	return str != NULL && strstr(str, ERPC_JSON_NUL) != NULL;
}
