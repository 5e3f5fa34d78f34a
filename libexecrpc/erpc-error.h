/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * ERPC_ERROR:
 *
 * The error domain of libexecrpc. Every error that reaches a peer is first
 * converted into this domain with erpc_error_convert(), and its code decides
 * the JSON-RPC wire code (see erpc_error_to_wire_code()).
 *
 * Since: 0.1
 */
#define ERPC_ERROR (erpc_error_quark())

/**
 * ErpcError:
 * @ERPC_ERROR_PARSE: a frame could not be parsed (wire -32600, id -1)
 * @ERPC_ERROR_INVALID_REQUEST: protocol-order or request rule violation (-32600)
 * @ERPC_ERROR_METHOD_NOT_FOUND: unknown or unavailable method (-32601)
 * @ERPC_ERROR_INVALID_PARAMS: params of the wrong shape or value (-32602)
 * @ERPC_ERROR_INTERNAL: anything else that failed on the server (-32603)
 * @ERPC_ERROR_NOT_FOUND: a file or handle that does not exist (-32004)
 * @ERPC_ERROR_PERMISSION_DENIED: refused by permissions or policy (-32600)
 * @ERPC_ERROR_EXISTS: the target already exists (-32603)
 * @ERPC_ERROR_NOT_SUPPORTED: the operation is not supported here (-32603)
 * @ERPC_ERROR_BUSY: a limit was reached (-32600)
 * @ERPC_ERROR_CANCELLED: the request was cancelled (-32603)
 * @ERPC_ERROR_SESSION_ATTACHED: the session has a live connection (-32010)
 * @ERPC_ERROR_TIMED_OUT: an operation did not finish in time (-32603)
 *
 * Error codes of %ERPC_ERROR.
 *
 * Since: 0.1
 */
typedef enum {
	ERPC_ERROR_PARSE,
	ERPC_ERROR_INVALID_REQUEST,
	ERPC_ERROR_METHOD_NOT_FOUND,
	ERPC_ERROR_INVALID_PARAMS,
	ERPC_ERROR_INTERNAL,
	ERPC_ERROR_NOT_FOUND,
	ERPC_ERROR_PERMISSION_DENIED,
	ERPC_ERROR_EXISTS,
	ERPC_ERROR_NOT_SUPPORTED,
	ERPC_ERROR_BUSY,
	ERPC_ERROR_CANCELLED,
	ERPC_ERROR_SESSION_ATTACHED,
	ERPC_ERROR_TIMED_OUT,
	/*< private >*/
	ERPC_ERROR_LAST
} ErpcError;

/* the JSON-RPC error codes of the protocol, see erpc_error_to_wire_code() */

/**
 * ERPC_WIRE_INVALID_REQUEST:
 *
 * The JSON-RPC error code of an invalid request, a refused one and a parse error, -32600.
 *
 * Since: 0.1
 */
#define ERPC_WIRE_INVALID_REQUEST -32600
/**
 * ERPC_WIRE_METHOD_NOT_FOUND:
 *
 * The JSON-RPC error code of an unknown or unavailable method, -32601.
 *
 * Since: 0.1
 */
#define ERPC_WIRE_METHOD_NOT_FOUND -32601
/**
 * ERPC_WIRE_INVALID_PARAMS:
 *
 * The JSON-RPC error code of params of the wrong shape or value, -32602.
 *
 * Since: 0.1
 */
#define ERPC_WIRE_INVALID_PARAMS -32602
/**
 * ERPC_WIRE_INTERNAL:
 *
 * The JSON-RPC error code of a failure on the server, -32603.
 *
 * Since: 0.1
 */
#define ERPC_WIRE_INTERNAL -32603
/**
 * ERPC_WIRE_NOT_FOUND:
 *
 * The JSON-RPC error code of a file or handle that does not exist, -32004.
 *
 * Since: 0.1
 */
#define ERPC_WIRE_NOT_FOUND -32004
/**
 * ERPC_WIRE_ALREADY_ATTACHED:
 *
 * The JSON-RPC error code of a session resumed while another connection has it, -32010.
 *
 * Since: 0.1
 */
#define ERPC_WIRE_ALREADY_ATTACHED -32010

GQuark
erpc_error_quark(void);
gint
erpc_error_to_wire_code(const GError *error);
ErpcError
erpc_error_from_wire_code(gint code);
void
erpc_error_convert(GError **perror);
ErpcError
erpc_error_code_from_errno(gint errnum);
const gchar *
erpc_error_code_to_string(ErpcError code);

G_END_DECLS
