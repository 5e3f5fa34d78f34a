/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <execrpc.h>
#include <locale.h>
#include <stdio.h>
#include <unistd.h>

#include "esd-discovery-util.h"
#include "esd-discovery-v1.h"
#include "esd-discovery-v2.h"

/*
 * esd-discovery-helper: a capability discovery inside a sandbox. The daemon
 * starts it through the host's sandbox service (esd-discovery-sandbox.c)
 * with one request on stdin:
 *
 *   {"method":"discoverV1","limits":{…},"roots":[{"path":"/abs","uri":"file:///abs"},…]}
 *   {"method":"discoverV2","limits":{…},"codexHome":"/…","home":"/…"|null}
 *
 * and writes, for discoverV1, one line per root with the root's Discovery
 * less `id` and `path`, for discoverV2 the result object, with the same code
 * as the daemon's own discovery; it sees the file system as the sandbox
 * shows it. Exit status 0 means the answer is complete.
 */

#define ESD_DISCOVERY_HELPER_MAX_REQUEST (64 * 1024 * 1024)

static GBytes *
esd_discovery_helper_read_stdin(void)
{
	g_autoptr(GByteArray) data = g_byte_array_new();
	guint8 buf[65536];

	for (;;) {
		gssize n = read(STDIN_FILENO, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return NULL;
		if (n == 0)
			return g_byte_array_free_to_bytes(g_steal_pointer(&data));
		if (data->len + (gsize)n > ESD_DISCOVERY_HELPER_MAX_REQUEST)
			return NULL;
		g_byte_array_append(data, buf, (guint)n);
	}
}

static gboolean
esd_discovery_helper_write(const gchar *data, gsize len)
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

static gboolean
esd_discovery_helper_run(JsonObject *request, GString *out)
{
	const gchar *method = json_object_get_string_member_with_default(request, "method", "");
	JsonNode *limits_node = json_object_get_member(request, "limits");
	EsdDiscoveryLimits limits;

	esd_discovery_read_limits(limits_node != NULL && JSON_NODE_HOLDS_OBJECT(limits_node)
				      ? json_node_get_object(limits_node)
				      : NULL,
				  &limits);
	if (g_strcmp0(method, "discoverV1") == 0) {
		JsonNode *roots = json_object_get_member(request, "roots");
		JsonArray *array;

		if (roots == NULL || !JSON_NODE_HOLDS_ARRAY(roots))
			return FALSE;
		array = json_node_get_array(roots);
		for (guint i = 0; i < json_array_get_length(array); i++) {
			JsonNode *node = json_array_get_element(array, i);
			JsonObject *root;
			const gchar *path;
			const gchar *uri;

			if (!JSON_NODE_HOLDS_OBJECT(node))
				return FALSE;
			root = json_node_get_object(node);
			path = json_object_get_string_member_with_default(root, "path", NULL);
			uri = json_object_get_string_member_with_default(root, "uri", NULL);
			if (path == NULL || uri == NULL || !g_path_is_absolute(path))
				return FALSE;
			esd_discovery_v1_root(path, uri, &limits, out);
			g_string_append_c(out, '\n');
		}
		return TRUE;
	}
	if (g_strcmp0(method, "discoverV2") == 0) {
		const gchar *codex_home =
		    json_object_get_string_member_with_default(request, "codexHome", NULL);
		JsonNode *home = json_object_get_member(request, "home");

		if (codex_home == NULL || !g_path_is_absolute(codex_home))
			return FALSE;
		esd_discovery_v2(
		    codex_home,
		    home != NULL && JSON_NODE_HOLDS_VALUE(home) ? json_node_get_string(home) : NULL,
		    &limits,
		    out);
		g_string_append_c(out, '\n');
		return TRUE;
	}
	return FALSE;
}

int
main(int argc, char **argv)
{
	g_autoptr(GBytes) input = NULL;
	g_autoptr(JsonNode) request = NULL;
	g_autoptr(GString) out = g_string_new(NULL);
	g_autoptr(GError) error = NULL;
	gsize len = 0;
	const gchar *data;

	setlocale(LC_ALL, "");
	input = esd_discovery_helper_read_stdin();
	if (input == NULL) {
		g_printerr("esd-discovery-helper: cannot read the request\n");
		return 2;
	}
	data = g_bytes_get_data(input, &len);
	request = erpc_json_parse(data, len, len + 1, ERPC_JSON_MAX_DEPTH, &error);
	if (request == NULL || !JSON_NODE_HOLDS_OBJECT(request) ||
	    !esd_discovery_helper_run(json_node_get_object(request), out)) {
		g_printerr("esd-discovery-helper: malformed request%s%s\n",
			   error != NULL ? ": " : "",
			   error != NULL ? error->message : "");
		return 2;
	}
	if (!esd_discovery_helper_write(out->str, out->len))
		return 1;
	return 0;
}
