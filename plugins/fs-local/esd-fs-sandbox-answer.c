/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "esd-fs-sandbox-answer.h"

/*
 * What the sandboxed helper wrote on its stdout: one JSON-RPC response to
 * the request with id 1, nothing else. A result is read straight into the
 * answer for the client (erpc_call_result_begin()), so a large file read is
 * held once, and is passed on as the helper wrote it once it is known to be
 * exactly one JSON value; an error is parsed and passed on with its code,
 * message and data. Anything else is garbage. The helper runs our code, but
 * on files the client chose: a helper that misbehaves must not be able to
 * make the daemon send a broken or a second message, so nothing is trusted.
 */

/* a file read is at most 512 MiB, which base64 makes 683 MiB */
#define ESD_FS_ANSWER_MAX_RESULT ((gsize)1024 * 1024 * 1024)
#define ESD_FS_ANSWER_MAX_OTHER	 ((gsize)1024 * 1024)
#define ESD_FS_ANSWER_MAX_DEPTH	 64

struct _EsdFsAnswer {
	ErpcCall *call;
	GString *head;	 /* until it is known to be a result; then anything else */
	GString *result; /* from erpc_call_result_begin(), once it is one */
	gsize result_start;
	GError *error; /* the helper's error answer */
	JsonNode *error_data;
};

EsdFsAnswer *
esd_fs_answer_new(ErpcCall *call)
{
	EsdFsAnswer *self = g_new0(EsdFsAnswer, 1);
	self->call = g_object_ref(call);
	self->head = g_string_new(NULL);
	return self;
}

void
esd_fs_answer_free(EsdFsAnswer *self)
{
	if (self == NULL)
		return;
	g_object_unref(self->call);
	g_string_free(self->head, TRUE);
	if (self->result != NULL)
		g_string_free(self->result, TRUE);
	g_clear_error(&self->error);
	g_clear_pointer(&self->error_data, json_node_unref);
	g_free(self);
}

/*
 * How the helper's answer starts when it is a result: the head erpc_call
 * writes for ESD_FS_SANDBOX_REQUEST_ID, written the same way
 */
static const GString *
esd_fs_answer_result_head(void)
{
	static GString *head = NULL;

	if (g_once_init_enter(&head)) {
		GString *out = g_string_new(NULL);
		ErpcJsonWriter writer;

		erpc_json_writer_init(&writer, out);
		erpc_json_writer_begin_object(&writer);
		erpc_json_writer_member_int(&writer, "id", ESD_FS_SANDBOX_REQUEST_ID);
		erpc_json_writer_member(&writer, "result");
		g_once_init_leave(&head, out);
	}
	return head;
}

/**
 * esd_fs_answer_is_result:
 * @data: the helper's answer, or its start
 * @len: length of @data
 *
 * Safe in a worker thread.
 *
 * Returns: whether @data starts as a result to the helper's request does
 */
gboolean
esd_fs_answer_is_result(const gchar *data, gsize len)
{
	const GString *head = esd_fs_answer_result_head();

	return len >= head->len && memcmp(data, head->str, head->len) == 0;
}

static gboolean
esd_fs_answer_too_large(GError **error)
{
	g_set_error_literal(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "the sandboxed file system helper answered too much");
	return FALSE;
}

/**
 * esd_fs_answer_feed:
 * @self: an answer
 * @data: the next bytes of the helper's stdout
 * @len: their length
 * @error: return location for a #GError, or %NULL
 *
 * Safe in a worker thread.
 *
 * Returns: %FALSE when the answer is larger than any answer can be
 */
gboolean
esd_fs_answer_feed(EsdFsAnswer *self, const gchar *data, gsize len, GError **error)
{
	const gsize prefix_len = esd_fs_answer_result_head()->len;

	if (self->result == NULL && self->head->len < prefix_len) {
		gsize take = MIN(len, prefix_len - self->head->len);
		g_string_append_len(self->head, data, (gssize)take);
		data += take;
		len -= take;
		if (self->head->len < prefix_len)
			return TRUE;
		if (esd_fs_answer_is_result(self->head->str, self->head->len)) {
			self->result = erpc_call_result_begin(self->call, len);
			self->result_start = self->result->len;
		}
	}
	if (self->result != NULL) {
		if (self->result->len - self->result_start + len > ESD_FS_ANSWER_MAX_RESULT)
			return esd_fs_answer_too_large(error);
		g_string_append_len(self->result, data, (gssize)len);
		return TRUE;
	}
	if (self->head->len + len > ESD_FS_ANSWER_MAX_OTHER)
		return esd_fs_answer_too_large(error);
	g_string_append_len(self->head, data, (gssize)len);
	return TRUE;
}

/* JSON (RFC 8259), checked without building anything */
typedef struct {
	const guchar *p;
	const guchar *end;
} EsdFsScan;

static void
esd_fs_scan_ws(EsdFsScan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static gboolean
esd_fs_scan_string(EsdFsScan *s)
{
	if (s->p >= s->end || *s->p != '"')
		return FALSE;
	s->p++;
	while (s->p < s->end) {
		guchar c = *s->p++;
		if (c == '"')
			return TRUE;
		if (c < 0x20)
			return FALSE;
		if (c != '\\')
			continue;
		if (s->p >= s->end)
			return FALSE;
		c = *s->p++;
		if (c == 'u') {
			for (guint i = 0; i < 4; i++) {
				if (s->p >= s->end || !g_ascii_isxdigit(*s->p))
					return FALSE;
				s->p++;
			}
		} else if (strchr("\"\\/bfnrt", c) == NULL || c == '\0') {
			return FALSE;
		}
	}
	return FALSE;
}

static gboolean
esd_fs_scan_digits(EsdFsScan *s)
{
	const guchar *start = s->p;
	while (s->p < s->end && g_ascii_isdigit(*s->p))
		s->p++;
	return s->p > start;
}

static gboolean
esd_fs_scan_number(EsdFsScan *s)
{
	if (s->p < s->end && *s->p == '-')
		s->p++;
	if (s->p < s->end && *s->p == '0')
		s->p++;
	else if (!esd_fs_scan_digits(s))
		return FALSE;
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		if (!esd_fs_scan_digits(s))
			return FALSE;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (!esd_fs_scan_digits(s))
			return FALSE;
	}
	return TRUE;
}

static gboolean
esd_fs_scan_literal(EsdFsScan *s, const gchar *word)
{
	gsize len = strlen(word);
	if ((gsize)(s->end - s->p) < len || memcmp(s->p, word, len) != 0)
		return FALSE;
	s->p += len;
	return TRUE;
}

static gboolean
esd_fs_scan_value(EsdFsScan *s, guint depth);

/* an array or object after its opening bracket */
static gboolean
esd_fs_scan_container(EsdFsScan *s, guchar close, guint depth)
{
	esd_fs_scan_ws(s);
	if (s->p < s->end && *s->p == close) {
		s->p++;
		return TRUE;
	}
	for (;;) {
		if (close == '}') {
			if (!esd_fs_scan_string(s))
				return FALSE;
			esd_fs_scan_ws(s);
			if (s->p >= s->end || *s->p++ != ':')
				return FALSE;
		}
		if (!esd_fs_scan_value(s, depth + 1))
			return FALSE;
		esd_fs_scan_ws(s);
		if (s->p >= s->end)
			return FALSE;
		if (*s->p == close) {
			s->p++;
			return TRUE;
		}
		if (*s->p++ != ',')
			return FALSE;
		esd_fs_scan_ws(s);
	}
}

static gboolean
esd_fs_scan_value(EsdFsScan *s, guint depth)
{
	esd_fs_scan_ws(s);
	if (s->p >= s->end || depth > ESD_FS_ANSWER_MAX_DEPTH)
		return FALSE;
	switch (*s->p) {
	case '{':
	case '[':
		s->p++;
		return esd_fs_scan_container(s, s->p[-1] == '{' ? '}' : ']', depth);
	case '"':
		return esd_fs_scan_string(s);
	case 't':
		return esd_fs_scan_literal(s, "true");
	case 'f':
		return esd_fs_scan_literal(s, "false");
	case 'n':
		return esd_fs_scan_literal(s, "null");
	default:
		return esd_fs_scan_number(s);
	}
}

/**
 * esd_fs_json_is_value:
 * @data: text
 * @len: its length
 *
 * Returns: whether @data is exactly one JSON value in UTF-8, nested at most
 *   64 deep
 */
gboolean
esd_fs_json_is_value(const gchar *data, gsize len)
{
	EsdFsScan s = {(const guchar *)data, (const guchar *)data + len};

	if (!g_utf8_validate_len(data, len, NULL) || !esd_fs_scan_value(&s, 1))
		return FALSE;
	esd_fs_scan_ws(&s);
	return s.p == s.end;
}

static gboolean
esd_fs_answer_garbage(GError **error)
{
	g_set_error_literal(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "the sandboxed file system helper gave no valid answer");
	return FALSE;
}

/* the helper's error answer, as its code, message and data */
static gboolean
esd_fs_answer_parse_error(EsdFsAnswer *self, GError **error)
{
	g_autoptr(GError) error_local = NULL;
	g_autoptr(ErpcMessage) message = NULL;
	JsonNode *id;
	JsonNode *data;

	message = erpc_message_parse(self->head->str,
				     self->head->len,
				     ESD_FS_ANSWER_MAX_OTHER,
				     ESD_FS_ANSWER_MAX_DEPTH,
				     &error_local);
	if (message == NULL || erpc_message_get_kind(message) != ERPC_MESSAGE_KIND_ERROR)
		return esd_fs_answer_garbage(error);
	id = erpc_message_get_id(message);
	if (id == NULL || !JSON_NODE_HOLDS_VALUE(id) ||
	    json_node_get_value_type(id) != G_TYPE_INT64 || json_node_get_int(id) != 1)
		return esd_fs_answer_garbage(error);
	self->error = g_error_new_literal(
	    ERPC_ERROR,
	    erpc_error_from_wire_code((gint)erpc_message_get_error_code(message)),
	    erpc_message_get_error_message(message));
	data = erpc_message_get_error_data(message);
	if (data != NULL)
		self->error_data = json_node_copy(data);
	return TRUE;
}

/**
 * esd_fs_answer_finish:
 * @self: an answer fed with everything the helper wrote
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE if the helper answered, with a result or an error; %FALSE
 *   with an internal @error if it wrote anything else
 */
gboolean
esd_fs_answer_finish(EsdFsAnswer *self, GError **error)
{
	GString *result = self->result;

	if (result == NULL)
		return esd_fs_answer_parse_error(self, error);
	/* the helper ends its answer with a newline, and the envelope with `}` */
	if (result->len > self->result_start && result->str[result->len - 1] == '\n')
		g_string_truncate(result, result->len - 1);
	if (result->len <= self->result_start || result->str[result->len - 1] != '}')
		return esd_fs_answer_garbage(error);
	g_string_truncate(result, result->len - 1);
	if (!esd_fs_json_is_value(result->str + self->result_start,
				  result->len - self->result_start))
		return esd_fs_answer_garbage(error);
	return TRUE;
}

/* (transfer full) (nullable): the result for erpc_call_result_end(), if the helper sent one */
GString *
esd_fs_answer_steal_result(EsdFsAnswer *self)
{
	return g_steal_pointer(&self->result);
}

/* (transfer none) (nullable): the helper's error answer */
const GError *
esd_fs_answer_get_error(EsdFsAnswer *self)
{
	return self->error;
}

/* (transfer full) (nullable): the `data` of the helper's error answer */
JsonNode *
esd_fs_answer_steal_error_data(EsdFsAnswer *self)
{
	return g_steal_pointer(&self->error_data);
}
