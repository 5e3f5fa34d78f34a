/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <execrpc.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <string.h>
#include <unistd.h>

#include "esd-ws-options.h"

/*
 * The ws plugin's options: WebSocket authentication and TLS. The checks, their order and their
 * messages follow `codex exec-server` 0.171.0 (PROTOCOL.md §2): a refused
 * value is a usage error (the command line is refused: exit 2, as clap), a
 * bad combination or an unreadable secret fails the plugin's startup (exit 1).
 * The TLS flags are ours. The same names are the keys of the `[ws]` section
 * of the config file; the command line replaces what the file sets.
 *
 * Secrets are read here, once, at startup: the token file becomes its
 * SHA-256 digest, so the raw token never leaves this file; the JWT secret is
 * handed to the listeners as bytes. Neither is ever printed: errors name the
 * path only.
 */

#define ESD_SECRET_MAX_SIZE	       (64 * 1024)
#define ESD_SIGNED_BEARER_MIN_BYTES    32
#define ESD_DEFAULT_CLOCK_SKEW_SECONDS 30

#define ESD_AUTH_CAPABILITY "capability-token"
#define ESD_AUTH_SIGNED	    "signed-bearer-token"

typedef struct {
	const gchar *name;
	const gchar *value_name;
	gsize offset;
} EsdWsFlag;

static const EsdWsFlag esd_ws_flags[] = {
    {"--ws-auth", "<MODE>", G_STRUCT_OFFSET(EsdWsOptions, ws_auth)},
    {"--ws-token-file", "<PATH>", G_STRUCT_OFFSET(EsdWsOptions, ws_token_file)},
    {"--ws-token-sha256", "<HEX>", G_STRUCT_OFFSET(EsdWsOptions, ws_token_sha256)},
    {"--ws-shared-secret-file", "<PATH>", G_STRUCT_OFFSET(EsdWsOptions, ws_shared_secret_file)},
    {"--ws-issuer", "<ISSUER>", G_STRUCT_OFFSET(EsdWsOptions, ws_issuer)},
    {"--ws-audience", "<AUDIENCE>", G_STRUCT_OFFSET(EsdWsOptions, ws_audience)},
    {"--ws-max-clock-skew-seconds",
     "<SECONDS>",
     G_STRUCT_OFFSET(EsdWsOptions, ws_max_clock_skew_seconds)},
    {"--tls-certificate", "<PATH>", G_STRUCT_OFFSET(EsdWsOptions, tls_certificate)},
    {"--tls-key", "<PATH>", G_STRUCT_OFFSET(EsdWsOptions, tls_key)},
};

static gboolean
esd_ws_options_usage_error(GError **error, const gchar *format, ...) G_GNUC_PRINTF(2, 3);

static gboolean
esd_ws_options_usage_error(GError **error, const gchar *format, ...)
{
	g_autofree gchar *message = NULL;
	va_list args;

	va_start(args, format);
	message = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error_literal(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, message);
	return FALSE;
}

/* the value checks clap makes for the reference */
static gboolean
esd_ws_options_check_value(const EsdWsFlag *flag, const gchar *value, GError **error)
{
	if (g_str_equal(flag->name, "--ws-auth") && !g_str_equal(value, ESD_AUTH_CAPABILITY) &&
	    !g_str_equal(value, ESD_AUTH_SIGNED)) {
		return esd_ws_options_usage_error(
		    error,
		    "invalid value '%s' for '%s %s'\n  [possible values: %s, %s]",
		    value,
		    flag->name,
		    flag->value_name,
		    ESD_AUTH_CAPABILITY,
		    ESD_AUTH_SIGNED);
	}
	if (g_str_equal(flag->name, "--ws-max-clock-skew-seconds")) {
		for (const gchar *p = value; *p != '\0'; p++) {
			if (!g_ascii_isdigit(*p)) {
				return esd_ws_options_usage_error(
				    error,
				    "invalid value '%s' for '%s %s': invalid digit found in string",
				    value,
				    flag->name,
				    flag->value_name);
			}
		}
		if (!g_ascii_string_to_unsigned(value, 10, 0, G_MAXUINT64, NULL, NULL)) {
			return esd_ws_options_usage_error(
			    error,
			    "invalid value '%s' for '%s %s': number too large to fit in target "
			    "type",
			    value,
			    flag->name,
			    flag->value_name);
		}
	}
	return TRUE;
}

/* a value from the command line replaces one from the file, never another one */
static gboolean
esd_ws_options_set(EsdWsOptions *flags,
		   guint index,
		   const gchar *value,
		   gboolean from_file,
		   GError **error)
{
	const EsdWsFlag *flag = &esd_ws_flags[index];
	gchar **field = G_STRUCT_MEMBER_P(flags, flag->offset);

	if (*field != NULL && (flags->from_file & (1u << index)) == 0) {
		return esd_ws_options_usage_error(
		    error,
		    "the argument '%s %s' cannot be used multiple times",
		    flag->name,
		    flag->value_name);
	}
	if (value == NULL || value[0] == '\0') {
		return esd_ws_options_usage_error(
		    error,
		    "a value is required for '%s %s' but none was supplied",
		    flag->name,
		    flag->value_name);
	}
	if (!esd_ws_options_check_value(flag, value, error))
		return FALSE;
	g_free(*field);
	*field = g_strdup(value);
	if (from_file)
		flags->from_file |= 1u << index;
	else
		flags->from_file &= ~(1u << index);
	return TRUE;
}

static gboolean
esd_ws_options_cb(const gchar *option_name, const gchar *value, gpointer data, GError **error)
{
	EsdWsOptions *flags = data;

	for (guint i = 0; i < G_N_ELEMENTS(esd_ws_flags); i++) {
		if (g_str_equal(option_name, esd_ws_flags[i].name))
			return esd_ws_options_set(flags, i, value, FALSE, error);
	}
	g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION, "%s", option_name);
	return FALSE;
}

static const GOptionEntry esd_ws_option_entries[] = {
    {"ws-auth",
     0,
     0,
     G_OPTION_ARG_CALLBACK,
     (gpointer)esd_ws_options_cb,
     /* TRANSLATORS: --ws-auth */
     N_("Require authentication on WebSocket upgrades: capability-token or signed-bearer-token"),
     "MODE"},
    {"ws-token-file",
     0,
     0,
     G_OPTION_ARG_CALLBACK,
     (gpointer)esd_ws_options_cb,
     /* TRANSLATORS: --ws-token-file */
     N_("File holding the capability token (surrounding white space is ignored)"),
     "PATH"},
    {"ws-token-sha256",
     0,
     0,
     G_OPTION_ARG_CALLBACK,
     (gpointer)esd_ws_options_cb,
     /* TRANSLATORS: --ws-token-sha256 */
     N_("Hex SHA-256 digest of the capability token, instead of --ws-token-file"),
     "HEX"},
    {"ws-shared-secret-file",
     0,
     0,
     G_OPTION_ARG_CALLBACK,
     (gpointer)esd_ws_options_cb,
     /* TRANSLATORS: --ws-shared-secret-file */
     N_("File holding the HS256 secret of signed bearer tokens (JWT), at least 32 bytes"),
     "PATH"},
    {"ws-issuer",
     0,
     0,
     G_OPTION_ARG_CALLBACK,
     (gpointer)esd_ws_options_cb,
     /* TRANSLATORS: --ws-issuer */
     N_("Required iss claim of signed bearer tokens"),
     "ISSUER"},
    {"ws-audience",
     0,
     0,
     G_OPTION_ARG_CALLBACK,
     (gpointer)esd_ws_options_cb,
     /* TRANSLATORS: --ws-audience */
     N_("Required aud claim of signed bearer tokens"),
     "AUDIENCE"},
    {"ws-max-clock-skew-seconds",
     0,
     0,
     G_OPTION_ARG_CALLBACK,
     (gpointer)esd_ws_options_cb,
     /* TRANSLATORS: --ws-max-clock-skew-seconds */
     N_("Leeway for the exp and nbf claims of signed bearer tokens (default 30)"),
     "SECONDS"},
    {"tls-certificate",
     0,
     0,
     G_OPTION_ARG_CALLBACK,
     (gpointer)esd_ws_options_cb,
     /* TRANSLATORS: --tls-certificate */
     N_("PEM certificate (chain) of wss:// listeners"),
     "PEM"},
    {"tls-key",
     0,
     0,
     G_OPTION_ARG_CALLBACK,
     (gpointer)esd_ws_options_cb,
     /* TRANSLATORS: --tls-key */
     N_("PEM private key of wss:// listeners"),
     "PEM"},
    {NULL}};

/**
 * esd_ws_options_new_group:
 * @options: where the values go; must outlive the group
 *
 * Returns: (transfer full): the options, for `--help-all` and `--help-ws`
 */
GOptionGroup *
esd_ws_options_new_group(EsdWsOptions *options)
{
	GOptionGroup *group =
	    g_option_group_new("ws",
			       /* TRANSLATORS: the heading of the ws plugin's options */
			       _("WebSocket authentication and TLS (ws plugin):"),
			       _("Show the WebSocket authentication and TLS options"),
			       options,
			       NULL);

	g_option_group_add_entries(group, esd_ws_option_entries);
	g_option_group_set_translation_domain(group, GETTEXT_PACKAGE);
	return group;
}

/**
 * esd_ws_options_get_config_keys:
 *
 * Returns: (transfer none): the keys of the `[ws]` section: the long option names
 */
const gchar *const *
esd_ws_options_get_config_keys(void)
{
	static const gchar *const keys[G_N_ELEMENTS(esd_ws_flags) + 1] = {
	    "ws-auth",
	    "ws-token-file",
	    "ws-token-sha256",
	    "ws-shared-secret-file",
	    "ws-issuer",
	    "ws-audience",
	    "ws-max-clock-skew-seconds",
	    "tls-certificate",
	    "tls-key",
	    NULL};
	return keys;
}

/**
 * esd_ws_options_load_config:
 * @options: the options
 * @file: the config file
 * @group: its `[ws]` section
 * @error: return location for a #GError
 *
 * Takes the values of @group, checked as on the command line; called before
 * the command line is parsed, which then replaces them.
 *
 * Returns: %TRUE on success
 */
gboolean
esd_ws_options_load_config(EsdWsOptions *options,
			   GKeyFile *file,
			   const gchar *group,
			   GError **error)
{
	for (guint i = 0; i < G_N_ELEMENTS(esd_ws_flags); i++) {
		const gchar *key = esd_ws_flags[i].name + strlen("--");
		g_autofree gchar *value = NULL;

		if (!g_key_file_has_key(file, group, key, NULL))
			continue;
		value = g_key_file_get_string(file, group, key, error);
		if (value == NULL) {
			g_prefix_error(error, "%s: ", key);
			return FALSE;
		}
		if (!esd_ws_options_set(options, i, value, TRUE, error)) {
			g_prefix_error(error, "%s: ", key);
			return FALSE;
		}
	}
	return TRUE;
}

typedef gchar EsdSecret;

static void
esd_ws_options_secret_free(EsdSecret *secret)
{
	explicit_bzero(secret, strlen(secret));
	g_free(secret);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdSecret, esd_ws_options_secret_free)

/* reads up to @size bytes; returns 0 or an errno value */
static int
esd_ws_options_read_file(const gchar *path, gchar *buf, gsize size, gsize *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	int saved = 0;

	*len = 0;
	if (fd < 0)
		return errno;
	while (*len < size) {
		gssize n = read(fd, buf + *len, size - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			saved = errno;
			break;
		}
		if (n == 0)
			break;
		*len += (gsize)n;
	}
	close(fd);
	return saved;
}

/* the content of a secret file, trimmed; never shown, not even in errors */
static EsdSecret *
esd_ws_options_read_secret(const gchar *path, GError **error)
{
	g_autofree gchar *buf = g_malloc(ESD_SECRET_MAX_SIZE + 2);
	g_autoptr(EsdSecret) secret = NULL;
	gsize len = 0;
	/* a pipe such as <(printf %s "$TOKEN") works too */
	int errsv = esd_ws_options_read_file(path, buf, ESD_SECRET_MAX_SIZE + 1, &len);
	gboolean has_nul = memchr(buf, '\0', len) != NULL;

	buf[len] = '\0';
	secret = g_strdup(g_strstrip(buf));
	explicit_bzero(buf, len);
	if (errsv != 0) {
		g_set_error(error,
			    G_IO_ERROR,
			    g_io_error_from_errno(errsv),
			    "failed to read websocket auth secret %s: %s (os error %d)",
			    path,
			    g_strerror(errsv),
			    errsv);
		return NULL;
	}
	if (len > ESD_SECRET_MAX_SIZE) {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_DATA,
			    "failed to read websocket auth secret %s: larger than %u bytes",
			    path,
			    (guint)ESD_SECRET_MAX_SIZE);
		return NULL;
	}
	/* a NUL would cut the secret short here */
	if (has_nul) {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_DATA,
			    "failed to read websocket auth secret %s: it contains a NUL byte",
			    path);
		return NULL;
	}
	/* the reference reads the file as a UTF-8 string */
	if (!g_utf8_validate(secret, -1, NULL)) {
		g_set_error(
		    error,
		    G_IO_ERROR,
		    G_IO_ERROR_INVALID_DATA,
		    "failed to read websocket auth secret %s: stream did not contain valid UTF-8",
		    path);
		return NULL;
	}
	if (secret[0] == '\0') {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_DATA,
			    "websocket auth secret %s must not be empty",
			    path);
		return NULL;
	}
	return g_steal_pointer(&secret);
}

static void
esd_ws_options_wipe_free(gpointer data, gsize len)
{
	explicit_bzero(data, len);
	g_free(data);
}

typedef struct {
	gpointer data;
	gsize len;
} EsdWipe;

static void
esd_ws_options_wipe_cb(gpointer user_data)
{
	EsdWipe *wipe = user_data;
	esd_ws_options_wipe_free(wipe->data, wipe->len);
	g_free(wipe);
}

/* an "ay" whose memory is wiped when its last reference goes */
static GVariant *
esd_ws_options_secret_variant(gconstpointer data, gsize len)
{
	EsdWipe *wipe = g_new0(EsdWipe, 1);
	g_autoptr(GBytes) bytes = NULL;

	wipe->data = g_memdup2(data, len);
	wipe->len = len;
	bytes = g_bytes_new_with_free_func(wipe->data, len, esd_ws_options_wipe_cb, wipe);
	return g_variant_new_from_bytes(G_VARIANT_TYPE_BYTESTRING, bytes, TRUE);
}

static gboolean
esd_ws_options_fail(GError **error, const gchar *message)
{
	g_set_error_literal(error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED, message);
	return FALSE;
}

static gboolean
esd_ws_options_parse_sha256(const gchar *value, guint8 *digest, GError **error)
{
	g_autofree gchar *trimmed = g_strstrip(g_strdup(value));

	if (strlen(trimmed) != 64)
		return esd_ws_options_fail(
		    error,
		    "--ws-token-sha256 must be a 64-character hex SHA-256 digest");
	for (guint i = 0; i < 32; i++) {
		gint high = g_ascii_xdigit_value(trimmed[2 * i]);
		gint low = g_ascii_xdigit_value(trimmed[2 * i + 1]);
		if (high < 0 || low < 0)
			return esd_ws_options_fail(
			    error,
			    "--ws-token-sha256 must be a 64-character hex SHA-256 digest");
		digest[i] = (guint8)(high << 4 | low);
	}
	return TRUE;
}

/* the combinations, in the order and words of the reference */
static gboolean
esd_ws_options_check_auth_flags(EsdWsOptions *flags, GError **error)
{
	gboolean token_flags = flags->ws_token_file != NULL || flags->ws_token_sha256 != NULL;
	gboolean jwt_flags = flags->ws_shared_secret_file != NULL || flags->ws_issuer != NULL ||
			     flags->ws_audience != NULL || flags->ws_max_clock_skew_seconds != NULL;
	guint8 digest[32];

	if (flags->ws_auth == NULL) {
		if (token_flags || jwt_flags)
			return esd_ws_options_fail(
			    error,
			    "websocket auth flags require `--ws-auth "
			    "capability-token` or `--ws-auth signed-bearer-token`");
		return TRUE;
	}
	if (g_str_equal(flags->ws_auth, ESD_AUTH_CAPABILITY)) {
		if (jwt_flags)
			return esd_ws_options_fail(
			    error,
			    "`--ws-shared-secret-file`, `--ws-issuer`, `--ws-audience`, and "
			    "`--ws-max-clock-skew-seconds` require `--ws-auth "
			    "signed-bearer-token`");
		if (flags->ws_token_file != NULL && flags->ws_token_sha256 != NULL)
			return esd_ws_options_fail(
			    error,
			    "`--ws-token-file` and `--ws-token-sha256` are mutually exclusive");
		if (flags->ws_token_sha256 != NULL)
			return esd_ws_options_parse_sha256(flags->ws_token_sha256, digest, error);
		if (flags->ws_token_file == NULL)
			return esd_ws_options_fail(
			    error,
			    "`--ws-token-file` or `--ws-token-sha256` is required "
			    "when `--ws-auth capability-token` is set");
		return TRUE;
	}
	if (token_flags)
		return esd_ws_options_fail(
		    error,
		    "`--ws-token-file` and `--ws-token-sha256` require `--ws-auth "
		    "capability-token`, not `signed-bearer-token`");
	if (flags->ws_shared_secret_file == NULL)
		return esd_ws_options_fail(error,
					   "`--ws-shared-secret-file` is required when `--ws-auth "
					   "signed-bearer-token` is set");
	return TRUE;
}

static gboolean
esd_ws_options_uri_has_scheme(const gchar *uri, const gchar *scheme)
{
	gsize len = strlen(scheme);
	return g_ascii_strncasecmp(uri, scheme, len) == 0 && g_str_has_prefix(uri + len, "://");
}

/* auth applies to WebSocket listeners only, TLS to wss:// ones */
static gboolean
esd_ws_options_check_listen(EsdWsOptions *flags, const gchar *const *listen, GError **error)
{
	gboolean tls = flags->tls_certificate != NULL || flags->tls_key != NULL;
	const gchar *wss = NULL;

	for (guint i = 0; listen[i] != NULL; i++) {
		const gchar *uri = listen[i];
		gboolean stdio =
		    g_str_equal(uri, "stdio") || esd_ws_options_uri_has_scheme(uri, "stdio");

		if (esd_ws_options_uri_has_scheme(uri, "wss") && wss == NULL)
			wss = uri;
		if (flags->ws_auth == NULL || esd_ws_options_uri_has_scheme(uri, "ws") ||
		    esd_ws_options_uri_has_scheme(uri, "wss"))
			continue;
		g_set_error(error,
			    G_OPTION_ERROR,
			    G_OPTION_ERROR_FAILED,
			    "WebSocket auth requires a WebSocket listener, not %s",
			    stdio ? "stdio" : uri);
		return FALSE;
	}
	if (tls && (flags->tls_certificate == NULL || flags->tls_key == NULL))
		return esd_ws_options_fail(
		    error,
		    "`--tls-certificate` and `--tls-key` must be given together");
	if (wss != NULL && !tls) {
		g_set_error(error,
			    G_OPTION_ERROR,
			    G_OPTION_ERROR_FAILED,
			    "--listen %s requires `--tls-certificate` and `--tls-key`",
			    wss);
		return FALSE;
	}
	if (tls && wss == NULL)
		return esd_ws_options_fail(
		    error,
		    "`--tls-certificate` and `--tls-key` require a `--listen "
		    "wss://IP:PORT` listener");
	return TRUE;
}

static gboolean
esd_ws_options_add_capability(EsdWsOptions *flags, GVariantBuilder *builder, GError **error)
{
	guint8 digest[32];

	if (flags->ws_token_sha256 != NULL) {
		if (!esd_ws_options_parse_sha256(flags->ws_token_sha256, digest, error))
			return FALSE;
	} else {
		g_autofree gchar *path = g_canonicalize_filename(flags->ws_token_file, NULL);
		g_autoptr(EsdSecret) token = esd_ws_options_read_secret(path, error);
		g_autoptr(GChecksum) checksum = NULL;
		gsize len = sizeof(digest);

		if (token == NULL)
			return FALSE;
		checksum = g_checksum_new(G_CHECKSUM_SHA256);
		g_checksum_update(checksum, (const guchar *)token, (gssize)strlen(token));
		g_checksum_get_digest(checksum, digest, &len);
	}
	g_variant_builder_add(builder,
			      "{sv}",
			      ESD_WS_OPTION_WS_TOKEN_SHA256,
			      esd_ws_options_secret_variant(digest, sizeof(digest)));
	explicit_bzero(digest, sizeof(digest));
	return TRUE;
}

static void
esd_ws_options_add_claim(GVariantBuilder *builder, const gchar *key, const gchar *value)
{
	g_autofree gchar *trimmed = NULL;

	/* as the reference: white space around is dropped, and empty means unset */
	if (value == NULL)
		return;
	trimmed = g_strstrip(g_strdup(value));
	if (trimmed[0] != '\0')
		g_variant_builder_add(builder, "{sv}", key, g_variant_new_string(trimmed));
}

static gboolean
esd_ws_options_add_signed(EsdWsOptions *flags, GVariantBuilder *builder, GError **error)
{
	g_autofree gchar *path = g_canonicalize_filename(flags->ws_shared_secret_file, NULL);
	g_autoptr(EsdSecret) secret = esd_ws_options_read_secret(path, error);
	guint64 skew = ESD_DEFAULT_CLOCK_SKEW_SECONDS;

	if (secret == NULL)
		return FALSE;
	if (strlen(secret) < ESD_SIGNED_BEARER_MIN_BYTES) {
		g_set_error(error,
			    G_OPTION_ERROR,
			    G_OPTION_ERROR_FAILED,
			    "signed websocket bearer secret %s must be at least %u bytes",
			    path,
			    (guint)ESD_SIGNED_BEARER_MIN_BYTES);
		return FALSE;
	}
	if (flags->ws_max_clock_skew_seconds != NULL &&
	    (!g_ascii_string_to_unsigned(flags->ws_max_clock_skew_seconds,
					 10,
					 0,
					 G_MAXUINT64,
					 &skew,
					 NULL) ||
	     skew > G_MAXINT64))
		return esd_ws_options_fail(
		    error,
		    "websocket auth clock skew must fit in a signed 64-bit integer");
	g_variant_builder_add(builder,
			      "{sv}",
			      ESD_WS_OPTION_WS_SHARED_SECRET,
			      esd_ws_options_secret_variant(secret, strlen(secret)));
	esd_ws_options_add_claim(builder, ESD_WS_OPTION_WS_ISSUER, flags->ws_issuer);
	esd_ws_options_add_claim(builder, ESD_WS_OPTION_WS_AUDIENCE, flags->ws_audience);
	g_variant_builder_add(builder,
			      "{sv}",
			      ESD_WS_OPTION_WS_CLOCK_SKEW,
			      g_variant_new_int64((gint64)skew));
	return TRUE;
}

/**
 * esd_ws_options_to_variant:
 * @flags: the flags as parsed
 * @listen: the `--listen` URIs
 * @error: return location for a #GError
 *
 * Checks the flags against each other and @listen and reads the secret
 * files.
 *
 * Returns: (transfer full): a `a{sv}` for #ErpcListener:options, or %NULL
 *   with @error set to a message for the user
 */
GVariant *
esd_ws_options_to_variant(EsdWsOptions *flags, const gchar *const *listen, GError **error)
{
	g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE_VARDICT);

	if (!esd_ws_options_check_auth_flags(flags, error))
		return NULL;
	if (!esd_ws_options_check_listen(flags, listen, error))
		return NULL;
	if (g_strcmp0(flags->ws_auth, ESD_AUTH_CAPABILITY) == 0) {
		if (!esd_ws_options_add_capability(flags, &builder, error))
			return NULL;
	} else if (g_strcmp0(flags->ws_auth, ESD_AUTH_SIGNED) == 0) {
		if (!esd_ws_options_add_signed(flags, &builder, error))
			return NULL;
	}
	if (flags->ws_auth != NULL)
		g_variant_builder_add(&builder,
				      "{sv}",
				      ESD_WS_OPTION_WS_AUTH,
				      g_variant_new_string(flags->ws_auth));
	if (flags->tls_certificate != NULL) {
		g_autofree gchar *cert = g_canonicalize_filename(flags->tls_certificate, NULL);
		g_autofree gchar *key = g_canonicalize_filename(flags->tls_key, NULL);
		g_variant_builder_add(&builder,
				      "{sv}",
				      ESD_WS_OPTION_TLS_CERTIFICATE,
				      g_variant_new_string(cert));
		g_variant_builder_add(&builder,
				      "{sv}",
				      ESD_WS_OPTION_TLS_KEY,
				      g_variant_new_string(key));
	}
	return g_variant_ref_sink(g_variant_builder_end(&builder));
}

/**
 * esd_ws_options_clear:
 * @flags: flags
 *
 * Frees the values.
 */
void
esd_ws_options_clear(EsdWsOptions *flags)
{
	for (guint i = 0; i < G_N_ELEMENTS(esd_ws_flags); i++) {
		gchar **field = G_STRUCT_MEMBER_P(flags, esd_ws_flags[i].offset);
		g_clear_pointer(field, g_free);
	}
}
