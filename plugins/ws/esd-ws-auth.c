/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "esd-ws-auth.h"
#include "esd-ws-soup.h"

/*
 * Authentication of WebSocket upgrades (PROTOCOL.md §2), as `codex
 * exec-server` does it: `Authorization: Bearer <token>`, where the token
 * is either a capability token or an HS256 JWT.
 *
 * The plugin reads the secrets at startup and hands them over in the
 * listener's options (esd-ws-options.c): `ws-auth` (s),
 * `ws-token-sha256` (ay, the SHA-256 of the capability token),
 * `ws-shared-secret` (ay), `ws-issuer` (s), `ws-audience` (s) and
 * `ws-max-clock-skew-seconds` (x). Tokens are compared as SHA-256 digests
 * in constant time, so neither their content nor their length shows in the
 * timing; JWT signatures are compared in constant time too, and a
 * payload is parsed only once its signature is verified. Nothing here logs:
 * the caller logs the peer and the result, never a token.
 */

#define ESD_WS_AUTH_DIGEST_LEN	 32
#define ESD_WS_AUTH_DEFAULT_SKEW 30
/* far more than any bearer token needs; the JSON parser gets a fixed budget */
#define ESD_WS_AUTH_JWT_MAX	  (16 * 1024)
#define ESD_WS_AUTH_JWT_MAX_DEPTH 16

/* GLib's SHA-256 and HMAC: libcrypto would cost every ws daemon a millisecond to map */

/* compares @len bytes in a time that depends on @len only */
static gboolean
esd_ws_auth_equal(const guint8 *a, const guint8 *b, gsize len)
{
	volatile guint8 diff = 0;

	for (gsize i = 0; i < len; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
}

typedef enum {
	ESD_WS_AUTH_MODE_NONE,
	ESD_WS_AUTH_MODE_CAPABILITY,
	ESD_WS_AUTH_MODE_SIGNED,
} EsdWsAuthMode;

struct _EsdWsAuth {
	GObject parent_instance;
	EsdWsAuthMode mode;
	GVariant *token_sha256; /* ay */
	GVariant *secret;	/* ay */
	gchar *issuer;
	gchar *audience;
	gint64 skew;
};

G_DEFINE_TYPE(EsdWsAuth, esd_ws_auth, G_TYPE_OBJECT)

static const gchar *const esd_ws_auth_messages[] = {
    [ESD_WS_AUTH_OK] = "ok",
    [ESD_WS_AUTH_MISSING] = "missing websocket bearer token",
    [ESD_WS_AUTH_BAD_HEADER] = "invalid authorization header",
    [ESD_WS_AUTH_BAD_TOKEN] = "invalid websocket bearer token",
    [ESD_WS_AUTH_BAD_JWT] = "invalid websocket jwt",
    [ESD_WS_AUTH_EXPIRED] = "expired websocket jwt",
    [ESD_WS_AUTH_NOT_YET_VALID] = "websocket jwt is not valid yet",
    [ESD_WS_AUTH_ISSUER_MISMATCH] = "websocket jwt issuer mismatch",
    [ESD_WS_AUTH_AUDIENCE_MISMATCH] = "websocket jwt audience mismatch",
};

/**
 * esd_ws_auth_result_to_string:
 * @result: a result
 *
 * Returns: the one-line body of the 401 answer, which is also what is logged
 */
const gchar *
esd_ws_auth_result_to_string(EsdWsAuthResult result)
{
	if ((guint)result >= G_N_ELEMENTS(esd_ws_auth_messages))
		return "unknown";
	return esd_ws_auth_messages[result];
}

/* strict base64url without padding, RFC 7515 §2: anything else is refused */
static GBytes *
esd_ws_auth_base64url_decode(const gchar *text, gsize len)
{
	g_autofree guint8 *out = NULL;
	guint32 acc = 0;
	guint bits = 0;
	gsize n = 0;

	if (len % 4 == 1)
		return NULL;
	out = g_malloc(len * 3 / 4 + 1);
	for (gsize i = 0; i < len; i++) {
		gchar c = text[i];
		guint v;
		if (c >= 'A' && c <= 'Z')
			v = (guint)(c - 'A');
		else if (c >= 'a' && c <= 'z')
			v = (guint)(c - 'a') + 26;
		else if (c >= '0' && c <= '9')
			v = (guint)(c - '0') + 52;
		else if (c == '-')
			v = 62;
		else if (c == '_')
			v = 63;
		else
			return NULL;
		acc = (acc << 6) | v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (guint8)(acc >> bits);
		}
	}
	/* the bits left over must be zero: one text per byte string */
	if ((acc & ((1u << bits) - 1)) != 0)
		return NULL;
	return g_bytes_new_take(g_steal_pointer(&out), n);
}

/* a JSON object from a base64url segment, within the size and depth limits */
static JsonObject *
esd_ws_auth_decode_object(const gchar *text, gsize len)
{
	g_autoptr(GBytes) bytes = esd_ws_auth_base64url_decode(text, len);
	g_autoptr(JsonNode) root = NULL;
	gsize size = 0;
	const gchar *data;

	if (bytes == NULL)
		return NULL;
	data = g_bytes_get_data(bytes, &size);
	root = erpc_json_parse(data != NULL ? data : "",
			       size,
			       ESD_WS_AUTH_JWT_MAX,
			       ESD_WS_AUTH_JWT_MAX_DEPTH,
			       NULL);
	if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root))
		return NULL;
	return json_object_ref(json_node_get_object(root));
}

static gint64
esd_ws_auth_saturating_add(gint64 a, gint64 b)
{
	return a > G_MAXINT64 - b ? G_MAXINT64 : a + b;
}

static gint64
esd_ws_auth_saturating_sub(gint64 a, gint64 b)
{
	return a < G_MININT64 + b ? G_MININT64 : a - b;
}

/* `aud`: absent, a string or an array of strings; *valid is FALSE for anything else */
static gboolean
esd_ws_auth_audience_matches(JsonObject *claims, const gchar *expected, gboolean *valid)
{
	g_auto(GStrv) audiences = NULL;
	const gchar *audience = NULL;

	*valid = TRUE;
	if (erpc_json_get_string(claims, "aud", NULL, &audience, NULL))
		return expected != NULL && g_strcmp0(audience, expected) == 0;
	if (!erpc_json_require_strv(claims, "aud", &audiences, NULL)) {
		*valid = FALSE;
		return FALSE;
	}
	return expected != NULL && g_strv_contains((const gchar *const *)audiences, expected);
}

/* the claims, checked in the reference's order */
static EsdWsAuthResult
esd_ws_auth_check_claims(EsdWsAuth *self, JsonObject *claims, gint64 now)
{
	const gchar *issuer = NULL;
	gint64 exp = 0;
	gint64 nbf = G_MININT64;
	gboolean aud_valid = TRUE;
	gboolean aud_matches;

	/* the types first: a malformed claim makes the token invalid, used or not */
	if (!erpc_json_require_int64(claims, "exp", &exp, NULL) ||
	    !erpc_json_get_int64(claims, "nbf", G_MININT64, &nbf, NULL) ||
	    !erpc_json_get_string(claims, "iss", NULL, &issuer, NULL))
		return ESD_WS_AUTH_BAD_JWT;
	aud_matches = esd_ws_auth_audience_matches(claims, self->audience, &aud_valid);
	if (!aud_valid)
		return ESD_WS_AUTH_BAD_JWT;
	if (now > esd_ws_auth_saturating_add(exp, self->skew))
		return ESD_WS_AUTH_EXPIRED;
	if (now < esd_ws_auth_saturating_sub(nbf, self->skew))
		return ESD_WS_AUTH_NOT_YET_VALID;
	if (self->issuer != NULL && g_strcmp0(issuer, self->issuer) != 0)
		return ESD_WS_AUTH_ISSUER_MISMATCH;
	if (self->audience != NULL && !aud_matches)
		return ESD_WS_AUTH_AUDIENCE_MISMATCH;
	return ESD_WS_AUTH_OK;
}

/* header.payload.signature, HS256 only; the payload is parsed after the signature checks out */
static EsdWsAuthResult
esd_ws_auth_check_jwt(EsdWsAuth *self, const gchar *token, gint64 now)
{
	g_autoptr(JsonObject) header = NULL;
	g_autoptr(JsonObject) claims = NULL;
	g_autoptr(GBytes) signature = NULL;
	g_auto(GStrv) parts = NULL;
	const gchar *alg = NULL;
	g_autoptr(GHmac) hmac = NULL;
	guint8 mac[ESD_WS_AUTH_DIGEST_LEN];
	gsize mac_len = sizeof(mac);
	gsize secret_len = 0;
	gsize signature_len = 0;
	gconstpointer secret;
	gsize signed_len;

	if (strlen(token) > ESD_WS_AUTH_JWT_MAX)
		return ESD_WS_AUTH_BAD_JWT;
	parts = g_strsplit(token, ".", 4);
	if (g_strv_length(parts) != 3)
		return ESD_WS_AUTH_BAD_JWT;
	/* the algorithm is ours to choose, never the token's: "none" and the rest are refused */
	header = esd_ws_auth_decode_object(parts[0], strlen(parts[0]));
	if (header == NULL || !erpc_json_require_string(header, "alg", &alg, NULL) ||
	    g_strcmp0(alg, "HS256") != 0)
		return ESD_WS_AUTH_BAD_JWT;
	signature = esd_ws_auth_base64url_decode(parts[2], strlen(parts[2]));
	if (signature == NULL)
		return ESD_WS_AUTH_BAD_JWT;
	secret = g_variant_get_fixed_array(self->secret, &secret_len, 1);
	signed_len = strlen(parts[0]) + 1 + strlen(parts[1]);
	hmac = g_hmac_new(G_CHECKSUM_SHA256, secret, secret_len);
	g_hmac_update(hmac, (const guchar *)token, (gssize)signed_len);
	g_hmac_get_digest(hmac, mac, &mac_len);
	/* the length of a signature is public: only its bytes need a constant-time compare */
	if (g_bytes_get_size(signature) != mac_len ||
	    !esd_ws_auth_equal(g_bytes_get_data(signature, &signature_len), mac, mac_len))
		return ESD_WS_AUTH_BAD_JWT;
	claims = esd_ws_auth_decode_object(parts[1], strlen(parts[1]));
	if (claims == NULL)
		return ESD_WS_AUTH_BAD_JWT;
	return esd_ws_auth_check_claims(self, claims, now);
}

static EsdWsAuthResult
esd_ws_auth_check_capability(EsdWsAuth *self, const gchar *token)
{
	g_autoptr(GChecksum) checksum = g_checksum_new(G_CHECKSUM_SHA256);
	guint8 digest[ESD_WS_AUTH_DIGEST_LEN];
	gsize digest_len = sizeof(digest);
	gsize expected_len = 0;
	gconstpointer expected = g_variant_get_fixed_array(self->token_sha256, &expected_len, 1);

	g_checksum_update(checksum, (const guchar *)token, (gssize)strlen(token));
	g_checksum_get_digest(checksum, digest, &digest_len);
	if (digest_len != ESD_WS_AUTH_DIGEST_LEN || expected_len != ESD_WS_AUTH_DIGEST_LEN)
		return ESD_WS_AUTH_BAD_TOKEN;
	if (!esd_ws_auth_equal(digest, expected, ESD_WS_AUTH_DIGEST_LEN))
		return ESD_WS_AUTH_BAD_TOKEN;
	return ESD_WS_AUTH_OK;
}

/* the single Authorization header, or NULL; *count tells how many there were */
static const gchar *
esd_ws_auth_get_authorization(SoupMessageHeaders *headers, guint *count)
{
	SoupMessageHeadersIter iter;
	const gchar *name;
	const gchar *value;
	const gchar *found = NULL;

	*count = 0;
	/* whoever made @headers has libsoup open; the table may not be filled yet */
	if (!esd_ws_soup_load(NULL))
		return NULL;
	soup_message_headers_iter_init(&iter, headers);
	while (soup_message_headers_iter_next(&iter, &name, &value)) {
		if (g_ascii_strcasecmp(name, "Authorization") != 0)
			continue;
		(*count)++;
		found = value;
	}
	return found;
}

/* `Bearer <token>`: the scheme in any case, one space, the token without white space around */
static gchar *
esd_ws_auth_parse_bearer(const gchar *value)
{
	const gchar *space;
	g_autofree gchar *token = NULL;

	/* visible ASCII, space and tab only, as the reference's header parser */
	for (const gchar *p = value; *p != '\0'; p++) {
		if ((*p < 0x20 || *p > 0x7e) && *p != '\t')
			return NULL;
	}
	space = strchr(value, ' ');
	if (space == NULL || space - value != 6 || g_ascii_strncasecmp(value, "Bearer", 6) != 0)
		return NULL;
	token = g_strstrip(g_strdup(space + 1));
	if (token[0] == '\0')
		return NULL;
	return g_steal_pointer(&token);
}

/**
 * esd_ws_auth_check:
 * @self: a #EsdWsAuth
 * @headers: the headers of an upgrade request
 * @now: the current time, in seconds since the epoch
 *
 * Returns: %ESD_WS_AUTH_OK if the request may be upgraded, or why not
 */
EsdWsAuthResult
esd_ws_auth_check(EsdWsAuth *self, SoupMessageHeaders *headers, gint64 now)
{
	g_autofree gchar *token = NULL;
	const gchar *value;
	guint count = 0;

	g_return_val_if_fail(ESD_IS_WS_AUTH(self), ESD_WS_AUTH_MISSING);
	if (self->mode == ESD_WS_AUTH_MODE_NONE)
		return ESD_WS_AUTH_OK;
	value = esd_ws_auth_get_authorization(headers, &count);
	if (count == 0)
		return ESD_WS_AUTH_MISSING;
	/* two credentials are one too many, whichever a proxy would have looked at */
	if (count > 1)
		return ESD_WS_AUTH_BAD_HEADER;
	token = esd_ws_auth_parse_bearer(value);
	if (token == NULL)
		return ESD_WS_AUTH_BAD_HEADER;
	if (self->mode == ESD_WS_AUTH_MODE_CAPABILITY)
		return esd_ws_auth_check_capability(self, token);
	return esd_ws_auth_check_jwt(self, token, now);
}

/**
 * esd_ws_auth_is_enabled:
 * @self: a #EsdWsAuth
 *
 * Returns: %TRUE if upgrades need a bearer token
 */
gboolean
esd_ws_auth_is_enabled(EsdWsAuth *self)
{
	g_return_val_if_fail(ESD_IS_WS_AUTH(self), FALSE);
	return self->mode != ESD_WS_AUTH_MODE_NONE;
}

static gboolean
esd_ws_auth_invalid_options(GError **error, const gchar *what)
{
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_INVALID_PARAMS,
		    "invalid listener options: %s",
		    what);
	return FALSE;
}

static gboolean
esd_ws_auth_load(EsdWsAuth *self, GVariant *options, GError **error)
{
	const gchar *mode = NULL;

	if (options == NULL || !g_variant_lookup(options, "ws-auth", "&s", &mode))
		return TRUE;
	if (g_str_equal(mode, "capability-token")) {
		self->mode = ESD_WS_AUTH_MODE_CAPABILITY;
		self->token_sha256 =
		    g_variant_lookup_value(options, "ws-token-sha256", G_VARIANT_TYPE_BYTESTRING);
		if (self->token_sha256 == NULL ||
		    g_variant_get_size(self->token_sha256) != ESD_WS_AUTH_DIGEST_LEN)
			return esd_ws_auth_invalid_options(error, "ws-token-sha256 needs 32 bytes");
		return TRUE;
	}
	if (!g_str_equal(mode, "signed-bearer-token"))
		return esd_ws_auth_invalid_options(error, "unknown ws-auth mode");
	self->mode = ESD_WS_AUTH_MODE_SIGNED;
	self->secret =
	    g_variant_lookup_value(options, "ws-shared-secret", G_VARIANT_TYPE_BYTESTRING);
	if (self->secret == NULL || g_variant_get_size(self->secret) == 0 ||
	    g_variant_get_size(self->secret) > G_MAXINT)
		return esd_ws_auth_invalid_options(error, "ws-shared-secret is missing");
	g_variant_lookup(options, "ws-issuer", "s", &self->issuer);
	g_variant_lookup(options, "ws-audience", "s", &self->audience);
	self->skew = ESD_WS_AUTH_DEFAULT_SKEW;
	g_variant_lookup(options, "ws-max-clock-skew-seconds", "x", &self->skew);
	if (self->skew < 0)
		return esd_ws_auth_invalid_options(error, "ws-max-clock-skew-seconds is negative");
	return TRUE;
}

/**
 * esd_ws_auth_new:
 * @options: (nullable): the listener's options
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the authentication @options ask for, which may
 *   be none, or %NULL if they are inconsistent
 */
EsdWsAuth *
esd_ws_auth_new(GVariant *options, GError **error)
{
	g_autoptr(EsdWsAuth) self = g_object_new(ESD_TYPE_WS_AUTH, NULL);

	if (!esd_ws_auth_load(self, options, error))
		return NULL;
	return g_steal_pointer(&self);
}

static void
esd_ws_auth_finalize(GObject *object)
{
	EsdWsAuth *self = ESD_WS_AUTH(object);

	/* the daemon wipes the secrets' memory when the last reference goes */
	g_clear_pointer(&self->token_sha256, g_variant_unref);
	g_clear_pointer(&self->secret, g_variant_unref);
	g_free(self->issuer);
	g_free(self->audience);
	G_OBJECT_CLASS(esd_ws_auth_parent_class)->finalize(object);
}

static void
esd_ws_auth_init(EsdWsAuth *self)
{
}

static void
esd_ws_auth_class_init(EsdWsAuthClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = esd_ws_auth_finalize;
}
