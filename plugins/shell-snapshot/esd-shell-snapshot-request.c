/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "esd-shell-snapshot-request.h"

/* the reference reads the member through a buffered value: a number is
 * named without its value */
static gchar *
esd_shell_snapshot_describe(JsonNode *node)
{
	if (JSON_NODE_HOLDS_VALUE(node) && (json_node_get_value_type(node) == G_TYPE_INT64 ||
					    json_node_get_value_type(node) == G_TYPE_DOUBLE))
		return g_strdup("number");
	return erpc_json_describe(node);
}

static gboolean
esd_shell_snapshot_invalid(GError **error, const gchar *format, ...) G_GNUC_PRINTF(2, 3);

static gboolean
esd_shell_snapshot_invalid(GError **error, const gchar *format, ...)
{
	va_list args;
	g_autofree gchar *message = NULL;

	va_start(args, format);
	message = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS, message);
	return FALSE;
}

static gboolean
esd_shell_snapshot_type_error(GError **error, JsonNode *node, const gchar *expected)
{
	g_autofree gchar *what = esd_shell_snapshot_describe(node);
	return esd_shell_snapshot_invalid(error, "invalid type: %s, expected %s", what, expected);
}

static gboolean
esd_shell_snapshot_string(JsonNode *node, gchar **out, GError **error)
{
	if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_STRING)
		return esd_shell_snapshot_type_error(error, node, "a string");
	g_free(*out);
	*out = g_strdup(json_node_get_string(node));
	return TRUE;
}

/*
 * A struct of two string or struct fields as serde reads it: a map (fields
 * in the order sent, unknown ones ignored, then the first missing field in
 * declaration order), or a sequence of exactly the fields in order.
 */
typedef gboolean (*EsdShellSnapshotField)(JsonNode *node, gpointer out, GError **error);

static gboolean
esd_shell_snapshot_struct(JsonNode *node,
			  const gchar *struct_name,
			  const gchar *const names[2],
			  EsdShellSnapshotField fields[2],
			  gpointer outs[2],
			  GError **error)
{
	gboolean seen[2] = {FALSE, FALSE};

	if (JSON_NODE_HOLDS_ARRAY(node)) {
		JsonArray *array = json_node_get_array(node);
		guint len = json_array_get_length(array);

		for (guint i = 0; i < MIN(len, 2); i++) {
			if (!fields[i](json_array_get_element(array, i), outs[i], error))
				return FALSE;
		}
		if (len < 2)
			return esd_shell_snapshot_invalid(error,
							  "invalid length %u, expected %s with 2 "
							  "elements",
							  len,
							  struct_name);
		if (len > 2)
			return esd_shell_snapshot_invalid(error,
							  "invalid length %u, expected fewer "
							  "elements in array",
							  len);
		return TRUE;
	}
	if (!JSON_NODE_HOLDS_OBJECT(node))
		return esd_shell_snapshot_type_error(error, node, struct_name);
	{
		/* in the order sent: the first bad member is the one reported */
		JsonObject *obj = json_node_get_object(node);
		g_autoptr(GList) members = json_object_get_members(obj);

		for (GList *l = members; l != NULL; l = l->next) {
			for (guint i = 0; i < 2; i++) {
				if (!g_str_equal(l->data, names[i]))
					continue;
				if (!fields[i](json_object_get_member(obj, l->data),
					       outs[i],
					       error))
					return FALSE;
				seen[i] = TRUE;
			}
		}
	}
	for (guint i = 0; i < 2; i++) {
		if (!seen[i])
			return esd_shell_snapshot_invalid(error, "missing field `%s`", names[i]);
	}
	return TRUE;
}

static gboolean
esd_shell_snapshot_string_field(JsonNode *node, gpointer out, GError **error)
{
	return esd_shell_snapshot_string(node, out, error);
}

static gboolean
esd_shell_snapshot_shell_field(JsonNode *node, gpointer out, GError **error)
{
	EsdShellSnapshotRequest *self = out;
	const gchar *const names[2] = {"name", "path"};
	EsdShellSnapshotField fields[2] = {esd_shell_snapshot_string_field,
					   esd_shell_snapshot_string_field};
	gpointer outs[2] = {&self->shell_name, &self->shell_path};

	return esd_shell_snapshot_struct(node, "struct ShellInfo", names, fields, outs, error);
}

/* argv is `[shell.path, "-lc", script, args...]`, argv[0] literally */
static gboolean
esd_shell_snapshot_request_applies(EsdShellSnapshotRequest *self, JsonObject *params)
{
	JsonNode *node = json_object_get_member(params, "argv");
	JsonArray *argv;

	if (node == NULL || !JSON_NODE_HOLDS_ARRAY(node))
		return FALSE;
	argv = json_node_get_array(node);
	if (json_array_get_length(argv) < 3)
		return FALSE;
	return g_strcmp0(json_array_get_string_element(argv, 0), self->shell_path) == 0 &&
	       g_strcmp0(json_array_get_string_element(argv, 1), "-lc") == 0;
}

/**
 * esd_shell_snapshot_request_parse:
 * @value: the `shellSnapshot` member, not null
 * @params: the params of `process/start`
 * @error: return location for a #GError, or %NULL
 *
 * Checks the member as the reference does: its shape, the scope's length,
 * then, for a command the snapshot applies to, the shell's name.
 *
 * Returns: (transfer full): the request, or %NULL with the -32602 error
 */
EsdShellSnapshotRequest *
esd_shell_snapshot_request_parse(JsonNode *value, JsonObject *params, GError **error)
{
	g_autoptr(EsdShellSnapshotRequest) self = g_new0(EsdShellSnapshotRequest, 1);
	const gchar *const names[2] = {"scopeId", "shell"};
	EsdShellSnapshotField fields[2] = {esd_shell_snapshot_string_field,
					   esd_shell_snapshot_shell_field};
	gpointer outs[2] = {&self->scope_id, self};
	const gchar *const shells[] = {"bash", "zsh", "sh", NULL};
	gsize len;

	if (!esd_shell_snapshot_struct(value,
				       "struct ShellSnapshotRequest",
				       names,
				       fields,
				       outs,
				       error))
		return NULL;
	len = strlen(self->scope_id);
	if (len == 0 || len > 256) {
		esd_shell_snapshot_invalid(
		    error,
		    "shell snapshot scope must be non-empty and at most 256 bytes");
		return NULL;
	}
	self->applies = esd_shell_snapshot_request_applies(self, params);
	if (!self->applies)
		return g_steal_pointer(&self);
	for (guint i = 0; shells[i] != NULL; i++) {
		if (g_str_equal(self->shell_name, shells[i])) {
			self->shell = (EsdShellSnapshotShell)i;
			return g_steal_pointer(&self);
		}
	}
	esd_shell_snapshot_invalid(error,
				   "shell snapshots are unsupported for shell `%s`",
				   self->shell_name);
	return NULL;
}

void
esd_shell_snapshot_request_free(EsdShellSnapshotRequest *self)
{
	if (self == NULL)
		return;
	g_free(self->scope_id);
	g_free(self->shell_name);
	g_free(self->shell_path);
	g_free(self);
}
