/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "erpc-registry-private.h"
#include "erpc-uri.h"
#include "esd-mock-transport.h"
#include "esd-server.h"
#include "esd-spawn.h"

/*
 * Fuzzes the params of every method through the real dispatcher and
 * handlers: an in-process server with the core, the process methods and the
 * fs-local plugin (loaded from the build tree by the real loader), one fresh
 * connection per input, after a handshake.
 *
 * Input: lines, each one request. The first byte of a line picks the method,
 * `(byte - 'A') % n` in fuzz_methods[] ('A' initialize ... 'V'
 * fs/watchMissing), the rest is its params as JSON. A line whose params do
 * not parse is skipped: the envelope has its own fuzzer. An input that
 * starts with `*` goes to a server with --concurrent-requests 8, where
 * requests of one connection overlap (fs/close during fs/readBlock, ...).
 *
 * Containment, since the handlers really act:
 *  - the fs methods work in a scratch directory, emptied after every input;
 *    the process keeps its working directory, since libFuzzer writes its
 *    corpus and artifacts relative to it and the daemon resolves no relative
 *    path (every path is an absolute file:// URI, relative ones are refused);
 *  - every string that the daemon's URI parser accepts as a file:// path is
 *    rewritten to the same path below the scratch directory (the parser
 *    normalises `..` and escapes, so the rewritten path cannot leave it;
 *    nothing the protocol offers creates a symbolic link), so fs methods
 *    touch nothing else;
 *  - a string argv[0] of process/start becomes /bin/true, which is what
 *    runs whatever arg0, env or tty say; other argv shapes are refused by
 *    the daemon before anything runs;
 *  - ESD_BWRAP=/bin/false: sandboxed launches are refused as unavailable
 *    after their policy is parsed, so no bwrap mount point is made on the host.
 */

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_REQUESTS     16
#define FUZZ_MAX_MESSAGE_SIZE (1024 * 1024)
/* long enough for fs jobs and spawns, short enough for long polls */
#define FUZZ_REPLY_TIMEOUT_MS 1000

/* the order is the input format: append only */
static const gchar *const fuzz_methods[] = {
    "initialize",	  /* A */
    "environment/info",	  /* B */
    "environment/status", /* C */
    "process/start",	  /* D */
    "process/read",	  /* E */
    "process/write",	  /* F */
    "process/signal",	  /* G */
    "process/terminate",  /* H */
    "fs/readFile",	  /* I */
    "fs/writeFile",	  /* J */
    "fs/createDirectory", /* K */
    "fs/getMetadata",	  /* L */
    "fs/canonicalize",	  /* M */
    "fs/readDirectory",	  /* N */
    "fs/walk",		  /* O */
    "fs/remove",	  /* P */
    "fs/copy",		  /* Q */
    "fs/open",		  /* R */
    "fs/readBlock",	  /* S */
    "fs/writeBlock",	  /* T */
    "fs/close",		  /* U */
    "fs/watchMissing",	  /* V */
};

/* one server runs a connection's requests one at a time, as by default, the other 8 at once */
static EsdServer *fuzz_servers[2] = {NULL, NULL};
static gchar *fuzz_scratch = NULL;

static void
fuzz_log_handler(const gchar *log_domain,
		 GLogLevelFlags log_level,
		 const gchar *message,
		 gpointer user_data)
{
	/* a peer must never cause more than a message */
	if (log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)) {
		fprintf(stderr, "fuzz-params: peer input caused: %s: %s\n", log_domain, message);
		abort();
	}
}

/* every method the server offers must be fuzzed */
static void
fuzz_check_methods(ErpcRegistry *registry)
{
	g_autoptr(GPtrArray) names = erpc_registry_list_methods(registry, NULL);

	for (guint i = 0; i < names->len; i++) {
		const gchar *name = g_ptr_array_index(names, i);
		gboolean found = FALSE;

		for (guint j = 0; j < G_N_ELEMENTS(fuzz_methods); j++)
			found |= g_strcmp0(fuzz_methods[j], name) == 0;
		if (!found) {
			fprintf(stderr,
				"fuzz-params: %s is not fuzzed: add it to fuzz_methods\n",
				name);
			abort();
		}
	}
}

static int
fuzz_remove_all_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

/* the scratch directory goes with the process, whatever the inputs left in it */
static void
fuzz_remove_scratch(void)
{
	if (fuzz_scratch != NULL)
		nftw(fuzz_scratch, fuzz_remove_all_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static void
fuzz_make_scratch(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = g_dir_make_tmp("esd-fuzz-params-XXXXXX", &error);
	char *real;

	if (dir == NULL)
		g_error("%s", error->message);
	/* the rewritten paths must not pass through a symbolic link */
	real = realpath(dir, NULL);
	if (real == NULL)
		g_error("cannot resolve %s", dir);
	fuzz_scratch = g_strdup(real);
	free(real);
	atexit(fuzz_remove_scratch);
}

static void
fuzz_init(void)
{
	static gboolean initialized = FALSE;

	if (initialized)
		return;
	initialized = TRUE;
	g_log_set_default_handler(fuzz_log_handler, NULL);
	signal(SIGPIPE, SIG_IGN);
	g_setenv("ESD_BWRAP", "/bin/false", TRUE);
	fuzz_make_scratch();
	esd_spawn_set_supervisor(ESD_BUILD_SUPERVISOR);
}

static EsdServer *
fuzz_get_server(gboolean concurrent)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *plugins = g_build_filename(ESD_BUILD_PLUGINDIR, "fs-local", NULL);
	EsdServer *server = fuzz_servers[concurrent ? 1 : 0];

	if (server != NULL)
		return server;
	fuzz_init();
	server = g_object_new(ESD_TYPE_SERVER,
			      "concurrent-requests",
			      concurrent ? 8u : 1u,
			      "max-message-size",
			      (guint64)FUZZ_MAX_MESSAGE_SIZE,
			      "session-grace",
			      1u,
			      "process-retention",
			      1u,
			      NULL);
	esd_plugin_loader_add_dir(esd_server_get_loader(server), plugins, FALSE);
	if (!esd_server_setup(server, &error))
		g_error("%s", error->message);
	if (erpc_registry_lookup_method(esd_server_get_registry(server), "fs/readFile", NULL) ==
	    NULL)
		g_error("the fs-local plugin did not load from %s", plugins);
	fuzz_check_methods(esd_server_get_registry(server));
	fuzz_servers[concurrent ? 1 : 0] = server;
	return server;
}

/* a file:// path anywhere in the params ends up below the scratch directory */
static JsonNode *
fuzz_confine_string(JsonNode *node)
{
	const gchar *str = json_node_get_string(node);
	g_autofree gchar *path = erpc_uri_to_path(str, NULL);
	g_autofree gchar *inside = NULL;
	g_autofree gchar *uri = NULL;

	/* a fresh node: copies of the parser's immutable nodes stay immutable */
	if (path == NULL || g_strcmp0(path, fuzz_scratch) == 0 ||
	    (g_str_has_prefix(path, fuzz_scratch) && path[strlen(fuzz_scratch)] == '/'))
		return json_node_init_string(json_node_alloc(), str);
	inside = g_strconcat(fuzz_scratch, path, NULL);
	uri = erpc_path_to_uri(inside);
	if (uri == NULL)
		g_error("cannot confine %s", path);
	return json_node_init_string(json_node_alloc(), uri);
}

/* a mutable copy of the (immutable) parsed tree, with paths confined */
static JsonNode *
fuzz_confine(JsonNode *node)
{
	switch (JSON_NODE_TYPE(node)) {
	case JSON_NODE_OBJECT: {
		JsonObject *copy = json_object_new();
		JsonObjectIter iter;
		const gchar *name;
		JsonNode *member;

		json_object_iter_init_ordered(&iter, json_node_get_object(node));
		while (json_object_iter_next_ordered(&iter, &name, &member))
			json_object_set_member(copy, name, fuzz_confine(member));
		/* the node takes the copy, not a second reference */
		JsonNode *out = json_node_init(json_node_alloc(), JSON_NODE_OBJECT);
		json_node_take_object(out, copy);
		return out;
	}
	case JSON_NODE_ARRAY: {
		JsonArray *array = json_node_get_array(node);
		JsonArray *copy = json_array_sized_new(json_array_get_length(array));

		for (guint i = 0; i < json_array_get_length(array); i++)
			json_array_add_element(copy,
					       fuzz_confine(json_array_get_element(array, i)));
		JsonNode *out = json_node_init(json_node_alloc(), JSON_NODE_ARRAY);
		json_node_take_array(out, copy);
		return out;
	}
	case JSON_NODE_VALUE:
		if (json_node_get_value_type(node) == G_TYPE_STRING)
			return fuzz_confine_string(node);
		return json_node_copy(node);
	case JSON_NODE_NULL:
	default:
		return json_node_copy(node);
	}
}

/* process/start only ever runs /bin/true */
static void
fuzz_defuse_start(JsonNode *params)
{
	JsonNode *argv;
	JsonNode *program;

	if (!JSON_NODE_HOLDS_OBJECT(params))
		return;
	argv = json_object_get_member(json_node_get_object(params), "argv");
	if (argv == NULL || !JSON_NODE_HOLDS_ARRAY(argv) ||
	    json_array_get_length(json_node_get_array(argv)) == 0)
		return;
	program = json_array_get_element(json_node_get_array(argv), 0);
	if (JSON_NODE_HOLDS_VALUE(program) && json_node_get_value_type(program) == G_TYPE_STRING)
		json_node_set_string(program, "/bin/true");
}

/* the request of one input line, or NULL to skip it */
static gchar *
fuzz_build_request(const gchar *line, gsize len, guint id)
{
	const gchar *method = fuzz_methods[(guint8)(line[0] - 'A') % G_N_ELEMENTS(fuzz_methods)];
	g_autoptr(JsonNode) parsed = NULL;
	g_autoptr(JsonNode) params = NULL;
	GString *request;

	parsed = erpc_json_parse(line + 1,
				 len - 1,
				 FUZZ_MAX_MESSAGE_SIZE,
				 ERPC_JSON_MAX_DEPTH - 1,
				 NULL);
	if (parsed == NULL)
		return NULL;
	params = fuzz_confine(parsed);
	if (g_strcmp0(method, "process/start") == 0)
		fuzz_defuse_start(params);
	request = g_string_new(NULL);
	g_string_append_printf(request, "{\"id\":%u,\"method\":", id);
	erpc_json_append_string(request, method, -1);
	g_string_append(request, ",\"params\":");
	erpc_json_append_node(request, params);
	g_string_append_c(request, '}');
	return g_string_free(request, FALSE);
}

/* replies, not notifications: every request gets exactly one */
static guint
fuzz_count_replies(EsdMockTransport *transport)
{
	GPtrArray *sent = esd_mock_transport_get_sent(transport);
	guint n = 0;

	for (guint i = 0; i < sent->len; i++) {
		if (!g_str_has_prefix(g_ptr_array_index(sent, i), "{\"method\":"))
			n++;
	}
	return n;
}

/* FUZZ_PARAMS_VERBOSE=1: what the server answered, to triage an input */
static void
fuzz_print_sent(EsdMockTransport *transport)
{
	GPtrArray *sent = esd_mock_transport_get_sent(transport);

	for (guint i = 0; i < sent->len; i++)
		fprintf(stderr, "  < %.300s\n", (const gchar *)g_ptr_array_index(sent, i));
}

static gboolean
fuzz_timeout_cb(gpointer user_data)
{
	gboolean *expired = user_data;
	*expired = TRUE;
	return G_SOURCE_REMOVE;
}

static void
fuzz_wait_replies(EsdMockTransport *transport, guint expected)
{
	gboolean expired = FALSE;
	guint timeout_id = g_timeout_add(FUZZ_REPLY_TIMEOUT_MS, fuzz_timeout_cb, &expired);

	while (!expired && !erpc_transport_is_closed(ERPC_TRANSPORT(transport)) &&
	       fuzz_count_replies(transport) < expected)
		g_main_context_iteration(NULL, TRUE);
	if (!expired)
		g_source_remove(timeout_id);
}

static int
fuzz_remove_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (ftw->level > 0)
		remove(path);
	return 0;
}

/* the next input finds an empty scratch directory, even if this one removed it */
static void
fuzz_reset_scratch(void)
{
	nftw(fuzz_scratch, fuzz_remove_cb, 16, FTW_DEPTH | FTW_PHYS);
	if (g_mkdir_with_parents(fuzz_scratch, 0700) != 0)
		g_error("cannot recreate %s", fuzz_scratch);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autoptr(EsdMockTransport) transport = esd_mock_transport_new();
	const gchar *p = (const gchar *)data;
	const gchar *end = p + size;
	gboolean concurrent = size > 0 && p[0] == '*';
	EsdServer *server = fuzz_get_server(concurrent);
	guint expected = 1;

	if (concurrent)
		p++;

	esd_server_add_transport(server, ERPC_TRANSPORT(transport));
	esd_mock_transport_inject(transport,
				  "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":"
				  "\"fuzz\"}}",
				  -1);
	esd_mock_transport_inject(transport, "{\"method\":\"initialized\"}", -1);
	while (p < end && expected <= FUZZ_MAX_REQUESTS) {
		const gchar *nl = memchr(p, '\n', end - p);
		gsize len = nl != NULL ? (gsize)(nl - p) : (gsize)(end - p);
		g_autofree gchar *request =
		    len > 0 ? fuzz_build_request(p, len, expected + 1) : NULL;

		if (request != NULL) {
			if (g_getenv("FUZZ_PARAMS_VERBOSE") != NULL)
				fprintf(stderr, "  > %.300s\n", request);
			esd_mock_transport_inject(transport, request, -1);
			expected++;
		}
		p += len + 1;
	}
	fuzz_wait_replies(transport, expected);
	if (g_getenv("FUZZ_PARAMS_VERBOSE") != NULL)
		fuzz_print_sent(transport);
	erpc_transport_close(ERPC_TRANSPORT(transport), FALSE);
	while (g_main_context_iteration(NULL, FALSE))
		;
	fuzz_reset_scratch();
	return 0;
}
