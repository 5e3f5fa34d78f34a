/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

/*
 * Fuzzes the `process/start.networkProxy` checks of the managed network
 * proxy (plugins/network-proxy/esd-np-config.c) and the domain patterns
 * they compile (esd-np-policy.c). Input: a first line of hosts, `,`
 * between them, then the member as JSON. Besides memory errors it aborts
 * when a refusal is not `-32602` with a message, when an accepted config
 * holds an empty glob or misses the lists, or when a host does not match
 * itself taken as a pattern.
 */

#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esd-np-config.h"
#include "esd-np-policy.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_fail(const gchar *what)
{
	fprintf(stderr, "fuzz-np-config: %s\n", what);
	abort();
}

static void
fuzz_check_globs(GPtrArray *globs)
{
	if (globs == NULL)
		fuzz_fail("a list is missing");
	for (guint i = 0; i < globs->len; i++) {
		if (((const gchar *)g_ptr_array_index(globs, i))[0] == '\0')
			fuzz_fail("an empty glob");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const gchar *text = (const gchar *)data;
	const gchar *newline = memchr(data, '\n', size);
	g_autofree gchar *line = NULL;
	g_autofree gchar *json = NULL;
	g_auto(GStrv) hosts = NULL;
	g_autoptr(JsonParser) parser = json_parser_new();
	g_autoptr(EsdNpConfig) config = NULL;
	g_autoptr(GError) error = NULL;
	JsonNode *root;

	if (newline == NULL)
		return 0;
	line = g_strndup(text, (gsize)(newline - text));
	json = g_strndup(newline + 1, size - (gsize)(newline - text) - 1);
	if (!json_parser_load_from_data(parser, json, -1, NULL))
		return 0;
	root = json_parser_get_root(parser);
	if (root == NULL)
		return 0;
	config = esd_np_config_parse(root, line[0] == 's', &error);
	if (config == NULL) {
		if (!g_error_matches(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS) ||
		    error->message == NULL || error->message[0] == '\0')
			fuzz_fail("a refusal that is not -32602 with a message");
		return 0;
	}
	fuzz_check_globs(config->allow);
	fuzz_check_globs(config->deny);
	fuzz_check_globs(config->review);
	hosts = g_strsplit(line, ",", 16);
	for (guint i = 0; hosts[i] != NULL; i++) {
		g_autofree gchar *host = esd_np_policy_normalize_host(hosts[i]);
		g_autoptr(GPtrArray) globs = g_ptr_array_new_with_free_func(g_free);
		g_autofree gchar *why = NULL;

		if (host == NULL)
			continue;
		(void)esd_np_config_match(config, host);
		(void)esd_np_config_names(config, host);
		/*
		 * a host is its own pattern, unless it holds a glob character, a
		 * zone (`%25` is normalized to `%` there) or one `:`, which a
		 * pattern takes for a port
		 */
		if (strpbrk(host, "*?[]%") != NULL ||
		    (strchr(host, ':') != NULL && strchr(host, ':') == strrchr(host, ':')))
			continue;
		why = esd_np_policy_pattern_compile(host, NULL, globs, NULL);
		if (why == NULL && globs->len > 0 &&
		    !esd_np_policy_glob_matches(g_ptr_array_index(globs, 0), host))
			fuzz_fail("a host does not match itself as a pattern");
	}
	return 0;
}
