/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "esd-np-http1.h"
#include "esd-np-request.h"

/*
 * The framing of HTTP/1.1 messages inside an intercepted tunnel, so that
 * one connection can carry several requests, each of whose heads the proxy
 * reads (and puts secrets into, or refuses): where a request's body ends,
 * where the response to it ends. Bodies are never held: esd_np_body_feed()
 * only counts the bytes that pass. A request whose framing is ambiguous
 * (both Content-Length and Transfer-Encoding, differing lengths, a coding
 * that does not end in chunked) is refused, as an intermediary must
 * (RFC 9112 §6.3): a server that read it otherwise would see a second
 * request the proxy never did.
 */

#define ESD_NP_BODY_MAX_LINE	4096
#define ESD_NP_BODY_MAX_TRAILER (64 * 1024)
#define ESD_NP_RESPONSE_MAX	128 /* header lines, as a request's */

enum {
	CHUNK_SIZE,    /* hex digits */
	CHUNK_EXT,     /* after `;`, up to the CR */
	CHUNK_SIZE_LF, /* the LF of the size line */
	CHUNK_DATA,
	CHUNK_DATA_CR,
	CHUNK_DATA_LF,
	CHUNK_TRAILER,	  /* a trailer line, or the empty line that ends the body */
	CHUNK_TRAILER_LF, /* the LF of a trailer line */
};

/* Content-Length: digits only, one value however often it is repeated */
static gboolean
esd_np_body_length(const GPtrArray *headers, gboolean *found, guint64 *length)
{
	*found = FALSE;
	for (guint i = 0; i + 1 < headers->len; i += 2) {
		const gchar *value = g_ptr_array_index(headers, i + 1);
		guint64 n = 0;

		if (g_ascii_strcasecmp(g_ptr_array_index(headers, i), "content-length") != 0)
			continue;
		if (value[0] == '\0' || strlen(value) > 18)
			return FALSE;
		for (const gchar *p = value; *p != '\0'; p++) {
			if (!g_ascii_isdigit(*p))
				return FALSE;
			n = n * 10 + (guint64)(*p - '0');
		}
		if (*found && n != *length)
			return FALSE;
		*found = TRUE;
		*length = n;
	}
	return TRUE;
}

/* Transfer-Encoding: whether there is one, and whether its last coding is chunked */
static gboolean
esd_np_body_coding(const GPtrArray *headers, gboolean *chunked)
{
	gboolean found = FALSE;

	*chunked = FALSE;
	for (guint i = 0; i + 1 < headers->len; i += 2) {
		g_auto(GStrv) codings = NULL;

		if (g_ascii_strcasecmp(g_ptr_array_index(headers, i), "transfer-encoding") != 0)
			continue;
		found = TRUE;
		codings = g_strsplit(g_ptr_array_index(headers, i + 1), ",", -1);
		for (guint j = 0; codings[j] != NULL; j++) {
			const gchar *coding = g_strstrip(codings[j]);
			if (coding[0] != '\0')
				*chunked = g_ascii_strcasecmp(coding, "chunked") == 0;
		}
	}
	return found;
}

static void
esd_np_body_set(EsdNpBody *body, EsdNpBodyKind kind, guint64 length)
{
	memset(body, 0, sizeof(*body));
	body->kind = kind;
	body->remaining = length;
	if (kind == ESD_NP_BODY_LENGTH && length == 0)
		body->kind = ESD_NP_BODY_NONE;
}

/**
 * esd_np_body_init_request:
 * @body: the framing to set
 * @headers: a request's headers
 *
 * Returns: %FALSE if the request's framing is ambiguous or malformed: it
 *   is to be refused
 */
gboolean
esd_np_body_init_request(EsdNpBody *body, const GPtrArray *headers)
{
	gboolean has_length;
	gboolean chunked;
	guint64 length = 0;

	if (!esd_np_body_length(headers, &has_length, &length))
		return FALSE;
	if (esd_np_body_coding(headers, &chunked)) {
		if (has_length || !chunked)
			return FALSE;
		esd_np_body_set(body, ESD_NP_BODY_CHUNKED, 0);
		return TRUE;
	}
	esd_np_body_set(body, ESD_NP_BODY_LENGTH, has_length ? length : 0);
	return TRUE;
}

/**
 * esd_np_body_init_response:
 * @body: the framing to set
 * @response: a final response's head (not 1xx, other than 101)
 * @request_method: the method of the request it answers
 *
 * Returns: %FALSE if its framing is malformed: the connection is to end
 */
gboolean
esd_np_body_init_response(EsdNpBody *body,
			  const EsdNpResponse *response,
			  const gchar *request_method)
{
	gboolean has_length;
	gboolean chunked;
	guint64 length = 0;

	if (response->status == 101 ||
	    (g_str_equal(request_method, "CONNECT") && response->status / 100 == 2)) {
		esd_np_body_set(body, ESD_NP_BODY_TUNNEL, 0);
		return TRUE;
	}
	if (g_str_equal(request_method, "HEAD") || response->status == 204 ||
	    response->status == 304) {
		esd_np_body_set(body, ESD_NP_BODY_NONE, 0);
		return TRUE;
	}
	if (esd_np_body_coding(response->headers, &chunked)) {
		esd_np_body_set(body, chunked ? ESD_NP_BODY_CHUNKED : ESD_NP_BODY_CLOSE, 0);
		return TRUE;
	}
	if (!esd_np_body_length(response->headers, &has_length, &length))
		return FALSE;
	esd_np_body_set(body,
			has_length ? ESD_NP_BODY_LENGTH : ESD_NP_BODY_CLOSE,
			has_length ? length : 0);
	return TRUE;
}

/* one byte of chunked framing (not of a chunk's data); FALSE if it is malformed */
static gboolean
esd_np_body_chunk_byte(EsdNpBody *body, guchar c, gboolean *done)
{
	switch (body->state) {
	case CHUNK_SIZE:
		if (g_ascii_isxdigit(c)) {
			if (body->digits == 15)
				return FALSE;
			body->digits++;
			body->remaining = body->remaining * 16 + (guint64)g_ascii_xdigit_value(c);
			return TRUE;
		}
		if (body->digits == 0)
			return FALSE;
		if (c == ';' || c == ' ' || c == '\t') {
			body->state = CHUNK_EXT;
			return TRUE;
		}
		if (c != '\r')
			return FALSE;
		body->state = CHUNK_SIZE_LF;
		return TRUE;
	case CHUNK_EXT:
		if (++body->line > ESD_NP_BODY_MAX_LINE || c == '\n' || c == '\0')
			return FALSE;
		if (c == '\r')
			body->state = CHUNK_SIZE_LF;
		return TRUE;
	case CHUNK_SIZE_LF:
		if (c != '\n')
			return FALSE;
		body->line = 0;
		body->digits = 0;
		body->state = body->remaining > 0 ? CHUNK_DATA : CHUNK_TRAILER;
		return TRUE;
	case CHUNK_DATA_CR:
		body->state = CHUNK_DATA_LF;
		return c == '\r';
	case CHUNK_DATA_LF:
		body->state = CHUNK_SIZE;
		return c == '\n';
	case CHUNK_TRAILER:
		if (++body->trailer > ESD_NP_BODY_MAX_TRAILER || c == '\n' || c == '\0')
			return FALSE;
		if (c == '\r')
			body->state = CHUNK_TRAILER_LF;
		else
			body->line++;
		return TRUE;
	case CHUNK_TRAILER_LF:
		if (c != '\n')
			return FALSE;
		/* an empty line ends the body */
		if (body->line == 0)
			*done = TRUE;
		body->line = 0;
		body->state = CHUNK_TRAILER;
		return TRUE;
	default:
		return FALSE;
	}
}

/**
 * esd_np_body_feed:
 * @body: a body's framing
 * @data: bytes that follow its head (or what came before)
 * @len: their length
 * @done: (out): set when the body ended
 *
 * Counts the bytes of @data that belong to the body, which go on as they
 * are; what follows them is the next message.
 *
 * Returns: how many bytes of @data are the body's, or -1 if its framing is
 *   malformed (the connection is to end)
 */
gssize
esd_np_body_feed(EsdNpBody *body, const guint8 *data, gsize len, gboolean *done)
{
	gsize used = 0;

	*done = FALSE;
	switch (body->kind) {
	case ESD_NP_BODY_NONE:
		*done = TRUE;
		return 0;
	case ESD_NP_BODY_CLOSE:
	case ESD_NP_BODY_TUNNEL:
		return (gssize)MIN(len, (gsize)G_MAXSSIZE);
	case ESD_NP_BODY_LENGTH:
		used = (gsize)MIN((guint64)len, body->remaining);
		body->remaining -= used;
		*done = body->remaining == 0;
		return (gssize)used;
	case ESD_NP_BODY_CHUNKED:
	default:
		break;
	}
	while (used < len && !*done) {
		if (body->state == CHUNK_DATA) {
			gsize n = (gsize)MIN((guint64)(len - used), body->remaining);
			used += n;
			body->remaining -= n;
			if (body->remaining == 0)
				body->state = CHUNK_DATA_CR;
			continue;
		}
		if (!esd_np_body_chunk_byte(body, data[used++], done))
			return -1;
	}
	return (gssize)used;
}

/**
 * esd_np_response_parse:
 * @data: a complete head (see esd_np_request_find_end())
 * @len: its length, through the blank line
 *
 * Returns: (transfer full) (nullable): the response's status and headers,
 *   or %NULL if the head is malformed
 */
EsdNpResponse *
esd_np_response_parse(const gchar *data, gsize len)
{
	g_autoptr(EsdNpResponse) self = g_new0(EsdNpResponse, 1);
	g_autofree gchar *text = NULL;
	g_auto(GStrv) lines = NULL;
	const gchar *status;

	if (len < 16 || len > ESD_NP_REQUEST_MAX_HEAD || memchr(data, '\0', len) != NULL)
		return NULL;
	self->head_len = len;
	self->headers = g_ptr_array_new_with_free_func(g_free);
	text = g_strndup(data, len - 4);
	lines = g_strsplit(text, "\r\n", ESD_NP_RESPONSE_MAX + 2);
	if (g_strv_length(lines) > ESD_NP_RESPONSE_MAX + 1)
		return NULL;
	/* HTTP/1.x NNN[ reason] */
	if (strncmp(lines[0], "HTTP/1.", 7) != 0 || !g_ascii_isdigit(lines[0][7]) ||
	    lines[0][8] != ' ')
		return NULL;
	status = lines[0] + 9;
	if (!g_ascii_isdigit(status[0]) || !g_ascii_isdigit(status[1]) ||
	    !g_ascii_isdigit(status[2]) || (status[3] != ' ' && status[3] != '\0') ||
	    status[0] == '0')
		return NULL;
	self->status = (guint)((status[0] - '0') * 100 + (status[1] - '0') * 10 + status[2] - '0');
	if (!esd_np_request_parse_header_lines(lines + 1, self->headers))
		return NULL;
	return g_steal_pointer(&self);
}

void
esd_np_response_free(EsdNpResponse *self)
{
	if (self == NULL)
		return;
	g_clear_pointer(&self->headers, g_ptr_array_unref);
	g_free(self);
}

/*
 * the header names of a head's `Connection` lines, lowercase, and the fixed
 * hop-by-hop ones; never the framing's
 */
static GPtrArray *
esd_np_response_hops(const gchar *head, const gchar *end)
{
	GPtrArray *hops = g_ptr_array_new_with_free_func(g_free);
	const gchar *line = head;

	g_ptr_array_add(hops, g_strdup("connection"));
	g_ptr_array_add(hops, g_strdup("keep-alive"));
	g_ptr_array_add(hops, g_strdup("proxy-connection"));
	while (line < end) {
		const gchar *eol = g_strstr_len(line, end - line, "\r\n");
		g_autofree gchar *text = NULL;
		g_auto(GStrv) names = NULL;

		if (eol == NULL)
			eol = end;
		if (line != head && (gsize)(eol - line) > 11 &&
		    g_ascii_strncasecmp(line, "connection:", 11) == 0) {
			text = g_strndup(line + 11, (gsize)(eol - line - 11));
			names = g_strsplit(text, ",", -1);
			for (guint i = 0; names[i] != NULL; i++) {
				const gchar *name = g_strstrip(names[i]);
				/* the framing stays as the proxy read it, whatever is named */
				if (name[0] != '\0' &&
				    g_ascii_strcasecmp(name, "content-length") != 0 &&
				    g_ascii_strcasecmp(name, "transfer-encoding") != 0)
					g_ptr_array_add(hops, g_ascii_strdown(name, -1));
			}
		}
		line = eol + 2;
	}
	return hops;
}

/* whether the header @line (of @len bytes) is named in @hops */
static gboolean
esd_np_response_is_hop(const gchar *line, gsize len, const GPtrArray *hops)
{
	const gchar *colon = memchr(line, ':', len);

	if (colon == NULL)
		return FALSE;
	for (guint i = 0; i < hops->len; i++) {
		const gchar *hop = g_ptr_array_index(hops, i);
		if (strlen(hop) == (gsize)(colon - line) &&
		    g_ascii_strncasecmp(line, hop, (gsize)(colon - line)) == 0)
			return TRUE;
	}
	return FALSE;
}

/**
 * esd_np_response_close_head:
 * @head: a response head, through its blank line
 * @len: its length
 *
 * The head of a response as a forward proxy's client gets it, the one
 * response its connection carries: the status line and the headers as they
 * came, but the hop-by-hop ones (`Connection`, what it names, `Keep-Alive`,
 * `Proxy-Connection`), then `Connection: close`.
 *
 * Returns: (transfer full): the head
 */
gchar *
esd_np_response_close_head(const gchar *head, gsize len)
{
	GString *out = g_string_sized_new(len + 20);
	const gchar *end = head + len - 2; /* the blank line's CRLF */
	const gchar *line = head;
	g_autoptr(GPtrArray) hops = esd_np_response_hops(head, end);

	while (line < end) {
		const gchar *eol = g_strstr_len(line, end - line, "\r\n");
		gsize n;

		if (eol == NULL)
			eol = end;
		n = (gsize)(eol - line);
		if (line == head || !esd_np_response_is_hop(line, n, hops)) {
			g_string_append_len(out, line, (gssize)n);
			g_string_append(out, "\r\n");
		}
		line = eol + 2;
	}
	g_string_append(out, "Connection: close\r\n\r\n");
	return g_string_free(out, FALSE);
}
