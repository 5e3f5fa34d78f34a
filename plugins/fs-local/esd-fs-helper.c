/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "esd-fs-connection-state.h"
#include "esd-fs-handoff.h"
#include "esd-fs-local-plugin.h"
#include "esd-fs-sandbox-answer.h"

/*
 * esd-fs-helper: one fs request, evaluated inside a sandbox. The daemon
 * starts it through the host's sandbox service (esd-fs-sandbox-exec.c) with
 * the request on stdin: one JSON-RPC request with id 1 and without
 * `sandbox`, params already checked. It runs the request with the fs-local
 * plugin's own method table (erpc_sandbox_helper_run_request()), so the
 * answer is exactly the one the daemon would give, writes the
 * complete response on stdout and exits. After a successful fs/open it
 * hands the handle's descriptors over on --handoff-fd (esd-fs-handoff.c).
 *
 * Exit status 0 means an answer was written; anything else is a failure the
 * daemon reports as an internal error.
 *
 * With --serve it stays (esd-fs-sandbox-warm.c): one request per line on
 * stdin, each answered by one line on stdout in turn, until stdin ends. A
 * request it cannot read ends it (exit status 2): the daemon then starts
 * another one.
 */

/* requests are bounded by the daemon; this only stops a runaway stdin */
#define ESD_FS_HELPER_MAX_REQUEST ((gsize)G_MAXINT32)
#define ESD_FS_HELPER_MAX_DEPTH	  64

/* what may be asked: requests that finish in one answer, and fs/open */
static const gchar *const esd_fs_helper_methods[] = {"fs/readFile",
						     "fs/writeFile",
						     "fs/createDirectory",
						     "fs/getMetadata",
						     "fs/canonicalize",
						     "fs/readDirectory",
						     "fs/walk",
						     "fs/remove",
						     "fs/copy",
						     "fs/open",
						     NULL};

static GBytes *
esd_fs_helper_read_stdin(GError **error)
{
	g_autoptr(GByteArray) data = g_byte_array_new();
	guint8 buf[65536];

	for (;;) {
		gssize n = read(STDIN_FILENO, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			esd_fs_set_errno(error, errno);
			return NULL;
		}
		if (n == 0)
			return g_byte_array_free_to_bytes(g_steal_pointer(&data));
		if (data->len + (gsize)n > ESD_FS_HELPER_MAX_REQUEST) {
			g_set_error_literal(error,
					    ERPC_ERROR,
					    ERPC_ERROR_INVALID_REQUEST,
					    "the request is too large");
			return NULL;
		}
		g_byte_array_append(data, buf, (guint)n);
	}
}

static gboolean
esd_fs_helper_write_stdout(const gchar *data, gsize len)
{
	while (len > 0) {
		gssize n = write(STDOUT_FILENO, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return FALSE;
		data += n;
		len -= (gsize)n;
	}
	return TRUE;
}

/* the request, if it is one the helper runs */
static ErpcMessage *
esd_fs_helper_parse(GBytes *frame, GError **error)
{
	g_autoptr(ErpcMessage) message = NULL;
	JsonNode *params;
	JsonNode *sandbox = NULL;

	message = erpc_message_parse_bytes(frame,
					   ESD_FS_HELPER_MAX_REQUEST,
					   ESD_FS_HELPER_MAX_DEPTH,
					   error);
	if (message == NULL)
		return NULL;
	params = erpc_message_get_params(message);
	if (params != NULL && JSON_NODE_HOLDS_OBJECT(params))
		sandbox = json_object_get_member(json_node_get_object(params), "sandbox");
	if (erpc_message_get_kind(message) != ERPC_MESSAGE_KIND_REQUEST ||
	    !g_strv_contains(esd_fs_helper_methods, erpc_message_get_method(message)) ||
	    (sandbox != NULL && !JSON_NODE_HOLDS_NULL(sandbox))) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_REQUEST,
				    "not a request the helper runs");
		return NULL;
	}
	return g_steal_pointer(&message);
}

/* after a successful fs/open: the new handle's descriptors go to the daemon */
static gboolean
esd_fs_helper_hand_over(ErpcCall *call, gint handoff_fd, GError **error)
{
	ErpcConnection *connection = erpc_call_get_connection(call);
	JsonNode *params = erpc_call_get_params(call);
	EsdFsHandleTable *handles;
	EsdFsHandle *handle;
	const gchar *id = NULL;

	if (!erpc_json_require_string(json_node_get_object(params), "handleId", &id, error))
		return FALSE;
	handles = esd_fs_connection_state_get_handles(esd_fs_connection_state_get(connection));
	handle = esd_fs_handle_table_lookup(handles, id, error);
	if (handle == NULL)
		return FALSE;
	if (handoff_fd < 0) {
		g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_INTERNAL, "no handoff socket");
		return FALSE;
	}
	return esd_fs_handoff_send(handoff_fd, handle, error);
}

static gboolean
esd_fs_helper_parse_args(gint argc, gchar **argv, gint *handoff_fd, gboolean *serve)
{
	for (gint i = 1; i < argc; i++) {
		guint64 value = 0;
		if (g_strcmp0(argv[i], "--serve") == 0) {
			*serve = TRUE;
			continue;
		}
		if (!g_str_has_prefix(argv[i], "--handoff-fd=") ||
		    !g_ascii_string_to_unsigned(argv[i] + strlen("--handoff-fd="),
						10,
						3,
						G_MAXINT,
						&value,
						NULL))
			return FALSE;
		*handoff_fd = (gint)value;
	}
	return TRUE;
}

static gboolean
esd_fs_helper_answer(ErpcCall *call, GBytes *answer, gint handoff_fd)
{
	g_autoptr(GError) error = NULL;
	gsize len = 0;
	const gchar *data = g_bytes_get_data(answer, &len);
	g_autoptr(GBytes) failure = NULL;

	if (g_strcmp0(erpc_call_get_method(call), "fs/open") == 0 &&
	    esd_fs_answer_is_result(data, len) &&
	    !esd_fs_helper_hand_over(call, handoff_fd, &error)) {
		g_printerr("esd-fs-helper: %s\n", error->message);
		failure = erpc_message_new_error(erpc_call_get_id(call),
						 erpc_error_to_wire_code(error),
						 error->message,
						 NULL);
		data = g_bytes_get_data(failure, &len);
	}
	return esd_fs_helper_write_stdout(data, len) && esd_fs_helper_write_stdout("\n", 1);
}

/* the next line of stdin, without its newline; NULL at the end (or with @error) */
static GBytes *
esd_fs_helper_read_line(GByteArray *buffer, GError **error)
{
	guint8 chunk[65536];

	for (;;) {
		guint8 *newline = buffer->len > 0 ? memchr(buffer->data, '\n', buffer->len) : NULL;
		gssize n;

		if (newline != NULL) {
			gsize len = (gsize)(newline - buffer->data);
			GBytes *line = g_bytes_new(buffer->data, len);
			g_byte_array_remove_range(buffer, 0, (guint)(len + 1));
			return line;
		}
		n = read(STDIN_FILENO, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			esd_fs_set_errno(error, errno);
			return NULL;
		}
		if (n == 0) {
			if (buffer->len > 0)
				g_set_error_literal(error,
						    ERPC_ERROR,
						    ERPC_ERROR_INVALID_REQUEST,
						    "the last request has no end");
			return NULL;
		}
		if (buffer->len + (gsize)n > ESD_FS_HELPER_MAX_REQUEST) {
			g_set_error_literal(error,
					    ERPC_ERROR,
					    ERPC_ERROR_INVALID_REQUEST,
					    "the request is too large");
			return NULL;
		}
		g_byte_array_append(buffer, chunk, (guint)n);
	}
}

/* runs one request and writes its answer; FALSE when the helper must stop */
static gboolean
esd_fs_helper_run(GBytes *frame, gint handoff_fd)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) answer = NULL;
	g_autoptr(ErpcMessage) message = NULL;
	g_autoptr(ErpcPlugin) plugin = NULL;
	g_autoptr(ErpcCall) call = NULL;

	message = esd_fs_helper_parse(frame, &error);
	if (message == NULL) {
		g_printerr("esd-fs-helper: %s\n", error->message);
		return FALSE;
	}
	plugin = g_object_new(ESD_TYPE_FS_LOCAL_PLUGIN, NULL);
	answer = erpc_sandbox_helper_run_request(plugin,
						 message,
						 ESD_FS_HELPER_MAX_REQUEST,
						 ESD_FS_HELPER_MAX_DEPTH,
						 &call,
						 &error);
	if (answer == NULL) {
		g_printerr("esd-fs-helper: %s\n", error->message);
		return FALSE;
	}
	if (!esd_fs_helper_answer(call, answer, handoff_fd)) {
		g_printerr("esd-fs-helper: cannot write the answer\n");
		return FALSE;
	}
	/* what fs/open opened is the daemon's now */
	esd_fs_connection_state_drop(erpc_call_get_connection(call));
	return TRUE;
}

int
main(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) frame = NULL;
	gboolean serve = FALSE;
	gint handoff_fd = -1;

	setlocale(LC_ALL, "C");
	g_set_prgname("esd-fs-helper");
	if (!esd_fs_helper_parse_args(argc, argv, &handoff_fd, &serve)) {
		g_printerr("usage: esd-fs-helper [--serve] [--handoff-fd=FD] < REQUEST\n");
		return 2;
	}
	if (serve) {
		g_autoptr(GByteArray) buffer = g_byte_array_new();
		for (;;) {
			g_autoptr(GBytes) line = esd_fs_helper_read_line(buffer, &error);
			if (line == NULL)
				break;
			if (!esd_fs_helper_run(line, handoff_fd))
				return 2;
		}
		if (error != NULL) {
			g_printerr("esd-fs-helper: %s\n", error->message);
			return 2;
		}
		return 0;
	}
	frame = esd_fs_helper_read_stdin(&error);
	if (frame == NULL) {
		g_printerr("esd-fs-helper: %s\n", error->message);
		return 2;
	}
	return esd_fs_helper_run(frame, handoff_fd) ? 0 : 2;
}
