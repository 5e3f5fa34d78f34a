/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

/*
 * Fuzzes WebSocket authentication (PROTOCOL.md §2): the Authorization
 * header of an upgrade, as a client sends it, against a capability token
 * and against HS256 signed bearer tokens with issuer and audience. The
 * first byte picks the mode, the rest is the header value. Besides memory
 * errors it checks that every answer is one of the documented outcomes,
 * that nothing is logged as a warning, and that only the real token (or a
 * JWT the secret signed, which the fuzzer cannot make) is accepted.
 */

#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esd-ws-auth.h"

#define FUZZ_TOKEN  "fuzz-capability-token"
#define FUZZ_SECRET "fuzz-shared-secret-of-at-least-32-bytes"
#define FUZZ_NOW    G_GINT64_CONSTANT(1700000000)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static EsdWsAuth *fuzz_token_auth = NULL;
static EsdWsAuth *fuzz_jwt_auth = NULL;

static void
fuzz_log_cb(const gchar *log_domain, GLogLevelFlags level, const gchar *message, gpointer data)
{
	if ((level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)) != 0) {
		fprintf(stderr, "fuzz-ws-auth: logged: %s\n", message);
		abort();
	}
}

/* takes @options */
static EsdWsAuth *
fuzz_auth_new(GVariant *options_in)
{
	g_autoptr(GVariant) options = options_in;
	g_autoptr(GError) error = NULL;
	EsdWsAuth *auth = esd_ws_auth_new(options, &error);

	if (auth == NULL) {
		fprintf(stderr, "fuzz-ws-auth: setup: %s\n", error->message);
		abort();
	}
	return auth;
}

static void
fuzz_init(void)
{
	g_auto(GVariantDict) token = G_VARIANT_DICT_INIT(NULL);
	g_auto(GVariantDict) jwt = G_VARIANT_DICT_INIT(NULL);
	guint8 digest[32];
	gsize digest_len = sizeof(digest);
	g_autoptr(GChecksum) checksum = g_checksum_new(G_CHECKSUM_SHA256);

	if (fuzz_token_auth != NULL)
		return;
	g_log_set_default_handler(fuzz_log_cb, NULL);
	g_checksum_update(checksum, (const guchar *)FUZZ_TOKEN, strlen(FUZZ_TOKEN));
	g_checksum_get_digest(checksum, digest, &digest_len);
	g_variant_dict_insert(&token, "ws-auth", "s", "capability-token");
	g_variant_dict_insert_value(&token,
				    "ws-token-sha256",
				    g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, digest, 32, 1));
	fuzz_token_auth = fuzz_auth_new(g_variant_ref_sink(g_variant_dict_end(&token)));
	g_variant_dict_insert(&jwt, "ws-auth", "s", "signed-bearer-token");
	g_variant_dict_insert_value(
	    &jwt,
	    "ws-shared-secret",
	    g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, FUZZ_SECRET, strlen(FUZZ_SECRET), 1));
	g_variant_dict_insert(&jwt, "ws-issuer", "s", "fuzz-issuer");
	g_variant_dict_insert(&jwt, "ws-audience", "s", "fuzz-audience");
	g_variant_dict_insert(&jwt, "ws-max-clock-skew-seconds", "x", (gint64)30);
	fuzz_jwt_auth = fuzz_auth_new(g_variant_ref_sink(g_variant_dict_end(&jwt)));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autoptr(SoupMessageHeaders) headers = NULL;
	g_autofree gchar *value = NULL;
	EsdWsAuthResult result;
	gboolean jwt;

	fuzz_init();
	if (size < 1 || size > 16 * 1024)
		return 0;
	jwt = (data[0] & 1) != 0;
	value = g_strndup((const gchar *)data + 1, size - 1);
	/* what an HTTP parser could hand over: no line breaks, no NUL */
	if (strlen(value) != size - 1 || strpbrk(value, "\r\n") != NULL)
		return 0;
	headers = soup_message_headers_new(SOUP_MESSAGE_HEADERS_REQUEST);
	/* an odd second byte sends the header twice */
	soup_message_headers_append(headers, "Authorization", value);
	if (size > 2 && (data[1] & 0x80) != 0)
		soup_message_headers_append(headers, "Authorization", value);
	result = esd_ws_auth_check(jwt ? fuzz_jwt_auth : fuzz_token_auth, headers, FUZZ_NOW);
	if (esd_ws_auth_result_to_string(result) == NULL && result != ESD_WS_AUTH_OK) {
		fprintf(stderr, "fuzz-ws-auth: unknown result %d\n", (gint)result);
		abort();
	}
	if (result == ESD_WS_AUTH_OK && !jwt) {
		/* only the token itself, after a Bearer scheme in any case */
		const gchar *space = strchr(value, ' ');
		g_autofree gchar *bearer = g_strdup(space != NULL ? space + 1 : "");
		if (space == NULL || g_ascii_strncasecmp(value, "bearer", 6) != 0 ||
		    strcmp(g_strstrip(bearer), FUZZ_TOKEN) != 0) {
			g_autofree gchar *escaped = g_strescape(value, NULL);
			fprintf(stderr, "fuzz-ws-auth: accepted \"%s\"\n", escaped);
			abort();
		}
	}
	if (result == ESD_WS_AUTH_OK && jwt) {
		g_autofree gchar *escaped = g_strescape(value, NULL);
		fprintf(stderr,
			"fuzz-ws-auth: accepted a JWT it could not sign: \"%s\"\n",
			escaped);
		abort();
	}
	return 0;
}
