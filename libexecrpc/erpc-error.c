/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <gio/gio.h>

#include "erpc-error.h"

/**
 * erpc_error_quark:
 *
 * The error domain of the protocol errors, whose codes map to the wire
 * codes.
 *
 * Returns: the #GQuark of %ERPC_ERROR, `erpc-error-quark`
 *
 * Since: 0.1
 */
/* not G_DEFINE_QUARK(erpc-error-quark, …): clang-format spaces the dashes of
 * a macro argument, and the domain's name would change with them */
GQuark
erpc_error_quark(void)
{
	static GQuark quark = 0;

	if (G_UNLIKELY(quark == 0))
		quark = g_quark_from_static_string("erpc-error-quark");
	return quark;
}

/* the one table that decides what a peer sees for each error */
static const struct {
	ErpcError code;
	gint wire;
	const gchar *name;
} erpc_error_map[] = {
    {ERPC_ERROR_PARSE, ERPC_WIRE_INVALID_REQUEST, "parse"},
    {ERPC_ERROR_INVALID_REQUEST, ERPC_WIRE_INVALID_REQUEST, "invalid-request"},
    {ERPC_ERROR_METHOD_NOT_FOUND, ERPC_WIRE_METHOD_NOT_FOUND, "method-not-found"},
    {ERPC_ERROR_INVALID_PARAMS, ERPC_WIRE_INVALID_PARAMS, "invalid-params"},
    {ERPC_ERROR_INTERNAL, ERPC_WIRE_INTERNAL, "internal"},
    {ERPC_ERROR_NOT_FOUND, ERPC_WIRE_NOT_FOUND, "not-found"},
    {ERPC_ERROR_PERMISSION_DENIED, ERPC_WIRE_INVALID_REQUEST, "permission-denied"},
    {ERPC_ERROR_EXISTS, ERPC_WIRE_INTERNAL, "exists"},
    {ERPC_ERROR_NOT_SUPPORTED, ERPC_WIRE_INTERNAL, "not-supported"},
    {ERPC_ERROR_BUSY, ERPC_WIRE_INVALID_REQUEST, "busy"},
    {ERPC_ERROR_CANCELLED, ERPC_WIRE_INTERNAL, "cancelled"},
    {ERPC_ERROR_SESSION_ATTACHED, ERPC_WIRE_ALREADY_ATTACHED, "session-attached"},
    {ERPC_ERROR_TIMED_OUT, ERPC_WIRE_INTERNAL, "timed-out"},
};

/**
 * erpc_error_code_to_string:
 * @code: an #ErpcError
 *
 * Names an #ErpcError code.
 *
 * Returns: (transfer none): a short stable name for @code, for logs
 *
 * Since: 0.1
 */
const gchar *
erpc_error_code_to_string(ErpcError code)
{
	for (guint i = 0; i < G_N_ELEMENTS(erpc_error_map); i++) {
		if (erpc_error_map[i].code == code)
			return erpc_error_map[i].name;
	}
	return "unknown";
}

/**
 * erpc_error_to_wire_code:
 * @error: a #GError, usually in %ERPC_ERROR
 *
 * Maps an error onto the JSON-RPC code sent to the peer. Errors outside
 * %ERPC_ERROR are internal errors; call erpc_error_convert() first to map
 * GIO and file errors properly.
 *
 * Returns: a JSON-RPC error code
 *
 * Since: 0.1
 */
gint
erpc_error_to_wire_code(const GError *error)
{
	g_return_val_if_fail(error != NULL, ERPC_WIRE_INTERNAL);
	if (error->domain != ERPC_ERROR)
		return ERPC_WIRE_INTERNAL;
	for (guint i = 0; i < G_N_ELEMENTS(erpc_error_map); i++) {
		if (erpc_error_map[i].code == (ErpcError)error->code)
			return erpc_error_map[i].wire;
	}
	return ERPC_WIRE_INTERNAL;
}

/**
 * erpc_error_from_wire_code:
 * @code: a JSON-RPC error code received from a peer
 *
 * The inverse of erpc_error_to_wire_code(), for clients.
 *
 * Returns: the closest #ErpcError
 *
 * Since: 0.1
 */
ErpcError
erpc_error_from_wire_code(gint code)
{
	switch (code) {
	case ERPC_WIRE_INVALID_REQUEST:
		return ERPC_ERROR_INVALID_REQUEST;
	case ERPC_WIRE_METHOD_NOT_FOUND:
		return ERPC_ERROR_METHOD_NOT_FOUND;
	case ERPC_WIRE_INVALID_PARAMS:
		return ERPC_ERROR_INVALID_PARAMS;
	case ERPC_WIRE_NOT_FOUND:
		return ERPC_ERROR_NOT_FOUND;
	case ERPC_WIRE_ALREADY_ATTACHED:
		return ERPC_ERROR_SESSION_ATTACHED;
	default:
		return ERPC_ERROR_INTERNAL;
	}
}

/**
 * erpc_error_code_from_errno:
 * @errnum: an errno value
 *
 * Maps an OS error the way the protocol classifies file system failures:
 * ENOENT is not-found, EACCES/EPERM/EINVAL are permission or input errors,
 * everything else (EBUSY and EMFILE too) is internal.
 *
 * Returns: an #ErpcError
 *
 * Since: 0.1
 */
ErpcError
erpc_error_code_from_errno(gint errnum)
{
	switch (errnum) {
	case ENOENT:
		return ERPC_ERROR_NOT_FOUND;
	case EACCES:
	case EPERM:
		return ERPC_ERROR_PERMISSION_DENIED;
	case EINVAL:
		return ERPC_ERROR_INVALID_REQUEST;
	case EEXIST:
		return ERPC_ERROR_EXISTS;
	case ETIMEDOUT:
		return ERPC_ERROR_TIMED_OUT;
	case ECANCELED:
		return ERPC_ERROR_CANCELLED;
	case ENOTSUP:
		return ERPC_ERROR_NOT_SUPPORTED;
	default:
		return ERPC_ERROR_INTERNAL;
	}
}

static ErpcError
erpc_error_code_from_gio(gint code)
{
	switch (code) {
	case G_IO_ERROR_NOT_FOUND:
		return ERPC_ERROR_NOT_FOUND;
	case G_IO_ERROR_EXISTS:
		return ERPC_ERROR_EXISTS;
	case G_IO_ERROR_PERMISSION_DENIED:
		return ERPC_ERROR_PERMISSION_DENIED;
	case G_IO_ERROR_INVALID_ARGUMENT:
	case G_IO_ERROR_INVALID_FILENAME:
	case G_IO_ERROR_INVALID_DATA:
		return ERPC_ERROR_INVALID_REQUEST;
	case G_IO_ERROR_NOT_SUPPORTED:
		return ERPC_ERROR_NOT_SUPPORTED;
	case G_IO_ERROR_CANCELLED:
		return ERPC_ERROR_CANCELLED;
	case G_IO_ERROR_TIMED_OUT:
		return ERPC_ERROR_TIMED_OUT;
	case G_IO_ERROR_BUSY:
	case G_IO_ERROR_TOO_MANY_OPEN_FILES:
		return ERPC_ERROR_BUSY;
	default:
		return ERPC_ERROR_INTERNAL;
	}
}

static ErpcError
erpc_error_code_from_file_error(gint code)
{
	switch (code) {
	case G_FILE_ERROR_NOENT:
		return ERPC_ERROR_NOT_FOUND;
	case G_FILE_ERROR_EXIST:
		return ERPC_ERROR_EXISTS;
	case G_FILE_ERROR_ACCES:
	case G_FILE_ERROR_PERM:
		return ERPC_ERROR_PERMISSION_DENIED;
	case G_FILE_ERROR_INVAL:
		return ERPC_ERROR_INVALID_REQUEST;
	default:
		return ERPC_ERROR_INTERNAL;
	}
}

/**
 * erpc_error_convert:
 * @perror: (inout) (nullable): a #GError
 *
 * Converts an error of GIO, GLib's file functions or json-glib into
 * %ERPC_ERROR in place, keeping its message. This is the one boundary where
 * foreign errors become protocol errors.
 *
 * Since: 0.1
 */
void
erpc_error_convert(GError **perror)
{
	GError *error;

	if (perror == NULL || *perror == NULL)
		return;
	error = *perror;
	if (error->domain == ERPC_ERROR)
		return;
	if (error->domain == G_IO_ERROR)
		error->code = erpc_error_code_from_gio(error->code);
	else if (error->domain == G_FILE_ERROR)
		error->code = erpc_error_code_from_file_error(error->code);
	else
		error->code = ERPC_ERROR_INTERNAL;
	error->domain = ERPC_ERROR;
}
