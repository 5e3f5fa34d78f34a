/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

/*
 * Fuzzes the params of http/request (plugins/http/esd-http-params.c): the
 * input is the params object as JSON. The daemon's environment is faked:
 * ESD_FUZZ_TOKEN is set, ESD_FUZZ_EMPTY is empty, and every denied name is
 * set, so that only the deny-list can refuse it. Besides memory errors it aborts when
 * a refusal is not a -32602 with a UTF-8 message, when an accepted request
 * has a method or header name that is no HTTP token, a header value with a
 * control character, a name that is not lower-case, a URL that is not
 * absolute http or https with a host, headers of one name that are not
 * next to each other, when a request naming a denied variable (the list of
 * PROTOCOL.md §12, kept here apart from the plugin's) is accepted, or when
 * anything is logged as a warning.
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esd-http-params.h"

#define FUZZ_SECRET "fuzz-denied-secret"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_log_cb(const gchar *log_domain, GLogLevelFlags level, const gchar *message, gpointer data)
{
	if ((level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)) != 0) {
		fprintf(stderr, "fuzz-http-params: logged: %s\n", message);
		abort();
	}
}

static void
fuzz_fail(const gchar *what)
{
	fprintf(stderr, "fuzz-http-params: %s\n", what);
	abort();
}

/* PROTOCOL.md §12's list, kept apart from the plugin's */
static const gchar *const fuzz_denied[] = {
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "CODEX_ACCESS_TOKEN",
    "CODEX_CONNECTORS_TOKEN",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AZURE_CLIENT_SECRET",
    "AZURE_FEDERATED_TOKEN_FILE",
    "GOOGLE_APPLICATION_CREDENTIALS",
};

static const gchar *
fuzz_getenv(const gchar *name)
{
	if (strcmp(name, "ESD_FUZZ_TOKEN") == 0)
		return "fuzz-token";
	if (strcmp(name, "ESD_FUZZ_EMPTY") == 0)
		return "";
	/* every denied name is set, so that only the deny-list refuses it */
	for (guint i = 0; i < G_N_ELEMENTS(fuzz_denied); i++) {
		if (g_ascii_strcasecmp(name, fuzz_denied[i]) == 0)
			return FUZZ_SECRET;
	}
	return NULL;
}

static void
fuzz_check(JsonObject *input, EsdHttpParams *params)
{
	JsonNode *headers = json_object_get_member(input, "headers");
	const gchar *scheme = g_uri_get_scheme(params->uri);
	const gchar *host = g_uri_get_host(params->uri);

	if (!esd_http_is_token(params->method))
		fuzz_fail("an accepted method is no token");
	if (g_strcmp0(scheme, "http") != 0 && g_strcmp0(scheme, "https") != 0)
		fuzz_fail("an accepted URL is not http or https");
	if (host == NULL || *host == '\0')
		fuzz_fail("an accepted URL has no host");
	if (params->url == NULL || !g_utf8_validate(params->url, -1, NULL) ||
	    strpbrk(params->url, " \t\r\n") != NULL)
		fuzz_fail("the URL shown in messages is not one token");
	if (params->names->len != params->values->len)
		fuzz_fail("names and values differ in number");
	for (guint i = 0; i < params->names->len; i++) {
		const gchar *name = params->names->pdata[i];
		g_autofree gchar *lower = g_ascii_strdown(name, -1);

		if (!esd_http_is_token(name) || strcmp(name, lower) != 0)
			fuzz_fail("an accepted header name is no lower-case token");
		if (!esd_http_is_header_value(params->values->pdata[i]))
			fuzz_fail("an accepted header value has a control character");
		/* a group's names are next to each other */
		for (guint j = i + 2; j < params->names->len; j++) {
			if (strcmp(params->names->pdata[j], name) == 0 &&
			    strcmp(params->names->pdata[j - 1], name) != 0)
				fuzz_fail("the headers of one name are not grouped");
		}
	}
	/* no accepted request names a denied variable */
	for (guint i = 0; headers != NULL && JSON_NODE_HOLDS_ARRAY(headers) &&
			  i < json_array_get_length(json_node_get_array(headers));
	     i++) {
		JsonNode *h = json_array_get_element(json_node_get_array(headers), i);
		JsonNode *var = JSON_NODE_HOLDS_OBJECT(h)
				    ? json_object_get_member(json_node_get_object(h), "valueEnvVar")
				    : NULL;

		if (var == NULL || !JSON_NODE_HOLDS_VALUE(var) ||
		    json_node_get_value_type(var) != G_TYPE_STRING)
			continue;
		for (guint j = 0; j < G_N_ELEMENTS(fuzz_denied); j++) {
			if (g_ascii_strcasecmp(json_node_get_string(var), fuzz_denied[j]) == 0)
				fuzz_fail("a denied variable was accepted");
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static gboolean initialized = FALSE;
	g_autoptr(JsonParser) parser = NULL;
	g_autoptr(EsdHttpParams) params = NULL;
	g_autoptr(GError) error = NULL;
	JsonNode *root;

	if (!initialized) {
		g_log_set_default_handler(fuzz_log_cb, NULL);
		initialized = TRUE;
	}
	if (size > 65536 || !g_utf8_validate((const gchar *)data, (gssize)size, NULL))
		return 0;
	parser = json_parser_new();
	if (!json_parser_load_from_data(parser, (const gchar *)data, (gssize)size, NULL))
		return 0;
	root = json_parser_get_root(parser);
	if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root))
		return 0;
	params = esd_http_params_parse(json_node_get_object(root), fuzz_getenv, &error);
	if (params == NULL) {
		if (!g_error_matches(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS))
			fuzz_fail("a refusal is not -32602");
		if (!g_utf8_validate(error->message, -1, NULL))
			fuzz_fail("a refusal's message is not UTF-8");
		return 0;
	}
	fuzz_check(json_node_get_object(root), params);
	return 0;
}
