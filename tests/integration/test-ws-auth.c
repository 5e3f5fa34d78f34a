/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <glib/gstdio.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <signal.h>
#include <string.h>

#include "esd-test-tls.h"
#include "esd-test-utils.h"

/*
 * WebSocket authentication and TLS (PROTOCOL.md §2) against the real
 * daemon: every 401 body, read raw from the socket; tokens that pass get the
 * whole handshake; wss:// with a certificate made here; and no token, secret
 * or JWT in the daemon's stderr, even at debug level. JWTs are signed here
 * with OpenSSL's HMAC. The flags are checked in test-ws-auth-flags.c.
 */

#define AUTH_TEST "/execserverd/integration/ws-auth/"

/* distinctive, so that finding them in a log is no accident */
#define TOKEN	 "capability-token-8f1d2c3b4a"
#define SECRET	 "jwt-shared-secret-5e6f7a8b9c0d1e2f3a4b5c6d"
#define ISSUER	 "issuer.test"
#define AUDIENCE "audience.test"
/* the SHA-256 of TOKEN */
#define TOKEN_SHA256 "6632ee30131d86e25f68afc6398ef9486e0a0ac53c4bf2d2e40064f604be9bc7"

typedef enum {
	DAEMON_TOKEN_FILE,
	DAEMON_TOKEN_SHA256,
	DAEMON_JWT_CLAIMS, /* --ws-issuer, --ws-audience, skew 60 */
	DAEMON_JWT_PLAIN,  /* no claims required, the default skew */
	DAEMON_WSS,	   /* wss:// with a capability token */
	DAEMON_LAST
} DaemonKind;

static gchar *scratch = NULL;
static EsdTestDaemon *daemons[DAEMON_LAST] = {NULL};
static GTlsCertificate *certificate = NULL;
/* every credential sent, which no log may show */
static GPtrArray *sent = NULL;

static gchar *
scratch_path(const gchar *name)
{
	return g_build_filename(scratch, name, NULL);
}

/* the scratch directory holds files only */
static void
remove_scratch(void)
{
	g_autoptr(GDir) dir = g_dir_open(scratch, 0, NULL);
	const gchar *name;

	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *path = scratch_path(name);
		g_unlink(path);
	}
	g_rmdir(scratch);
	g_clear_pointer(&scratch, g_free);
}

static void
write_scratch(const gchar *name, const gchar *content)
{
	g_autofree gchar *path = scratch_path(name);
	g_autoptr(GError) error = NULL;

	g_file_set_contents(path, content, -1, &error);
	g_assert_no_error(error);
}

/* run in the scratch directory: file names are relative, which the reference accepts too */
static const gchar *const daemon_args[] = {
    [DAEMON_TOKEN_FILE] = "-v --ws-auth capability-token --ws-token-file token",
    [DAEMON_TOKEN_SHA256] = "-v --ws-auth capability-token --ws-token-sha256 " TOKEN_SHA256,
    [DAEMON_JWT_CLAIMS] =
	"-v --ws-auth signed-bearer-token --ws-shared-secret-file secret "
	"--ws-issuer " ISSUER " --ws-audience " AUDIENCE " --ws-max-clock-skew-seconds 60",
    [DAEMON_JWT_PLAIN] = "-v --ws-auth signed-bearer-token --ws-shared-secret-file secret",
    [DAEMON_WSS] = "-v --listen wss://127.0.0.1:0 --tls-certificate cert.pem --tls-key key.pem "
		   "--ws-auth capability-token --ws-token-file token",
};

static EsdTestDaemon *
get_daemon(DaemonKind kind)
{
	const gchar *env[] = {"G_MESSAGES_DEBUG=all", NULL};

	if (daemons[kind] == NULL) {
		g_auto(GStrv) args = g_strsplit(daemon_args[kind], " ", -1);
		daemons[kind] =
		    esd_test_daemon_new_full((const gchar *const *)args, env, scratch, TRUE);
	}
	g_assert_true(esd_test_daemon_is_running(daemons[kind]));
	return daemons[kind];
}

/* raw HTTP, to read exactly what a refused upgrade gets */
typedef struct {
	guint status;
	gchar *content_type;
	gchar *body;
} Reply;

static void
reply_clear(Reply *reply)
{
	g_free(reply->content_type);
	g_free(reply->body);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Reply, reply_clear)

static gboolean
accept_test_certificate_cb(GTlsConnection *connection,
			   GTlsCertificate *peer,
			   GTlsCertificateFlags errors,
			   gpointer user_data)
{
	return g_tls_certificate_is_same(peer, certificate);
}

static GIOStream *
raw_connect(guint16 port, gboolean tls)
{
	g_autoptr(GSocketClient) client = g_socket_client_new();
	g_autoptr(GSocketConnection) connection = NULL;
	g_autoptr(GIOStream) tls_connection = NULL;
	g_autoptr(GError) error = NULL;

	/* the daemon is on 127.0.0.1: never go through a proxy from the environment */
	g_socket_client_set_enable_proxy(client, FALSE);
	g_socket_client_set_timeout(client, ESD_TEST_TIMEOUT_MS / 1000);
	connection = g_socket_client_connect_to_host(client, "127.0.0.1", port, NULL, &error);
	g_assert_no_error(error);
	if (!tls)
		return G_IO_STREAM(g_steal_pointer(&connection));
	tls_connection = g_tls_client_connection_new(G_IO_STREAM(connection), NULL, &error);
	g_assert_no_error(error);
	g_signal_connect(tls_connection,
			 "accept-certificate",
			 G_CALLBACK(accept_test_certificate_cb),
			 NULL);
	g_tls_connection_handshake(G_TLS_CONNECTION(tls_connection), NULL, &error);
	g_assert_no_error(error);
	return g_steal_pointer(&tls_connection);
}

/* the value of a header in @head, or NULL */
static gchar *
header_value(const gchar *head, const gchar *name)
{
	g_auto(GStrv) lines = g_strsplit(head, "\r\n", -1);
	gsize len = strlen(name);

	for (guint i = 1; lines[i] != NULL; i++) {
		if (g_ascii_strncasecmp(lines[i], name, len) == 0 && lines[i][len] == ':')
			return g_strstrip(g_strdup(lines[i] + len + 1));
	}
	return NULL;
}

/* sends @request and reads one response: its head, then Content-Length bytes */
static void
raw_exchange(GIOStream *stream, const gchar *request, Reply *reply)
{
	GInputStream *in = g_io_stream_get_input_stream(stream);
	g_autoptr(GString) data = g_string_new(NULL);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *head = NULL;
	g_autofree gchar *length = NULL;
	gsize head_len = 0; /* without the blank line; 0 until it came */
	guint64 body_len = 0;

	g_output_stream_write_all(g_io_stream_get_output_stream(stream),
				  request,
				  strlen(request),
				  NULL,
				  NULL,
				  &error);
	g_assert_no_error(error);
	for (;;) {
		const gchar *end = strstr(data->str, "\r\n\r\n");
		gchar buf[4096];
		gssize n;
		if (head == NULL && end != NULL) {
			head_len = (gsize)(end - data->str);
			head = g_strndup(data->str, head_len);
			length = header_value(head, "Content-Length");
			if (length != NULL)
				g_assert_true(g_ascii_string_to_unsigned(length,
									 10,
									 0,
									 65536,
									 &body_len,
									 NULL));
		}
		if (head != NULL && (g_str_has_prefix(head, "HTTP/1.1 101") ||
				     data->len >= head_len + 4 + body_len))
			break;
		n = g_input_stream_read(in, buf, sizeof(buf), NULL, &error);
		g_assert_no_error(error);
		if (n == 0)
			break;
		g_string_append_len(data, buf, n);
	}
	g_assert_nonnull(head);
	g_assert_true(g_str_has_prefix(head, "HTTP/1.1 "));
	g_assert_cmpuint(data->len, >=, head_len + 4 + body_len);
	reply->status = (guint)g_ascii_strtoull(head + 9, NULL, 10);
	reply->content_type = header_value(head, "Content-Type");
	reply->body = g_strndup(data->str + head_len + 4, (gsize)body_len);
}

/* an upgrade request with @extra header lines, each ending in \r\n */
static void
raw_upgrade(EsdTestDaemon *daemon, gboolean tls, const gchar *extra, Reply *reply)
{
	guint16 port = esd_test_daemon_get_port(daemon);
	g_autoptr(GIOStream) stream = raw_connect(port, tls);
	g_autofree gchar *request = NULL;

	request = g_strdup_printf("GET / HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: Upgrade\r\n"
				  "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
				  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n%s\r\n",
				  port,
				  extra != NULL ? extra : "");
	raw_exchange(stream, request, reply);
}

static void
assert_refused(EsdTestDaemon *daemon, gboolean tls, const gchar *extra, const gchar *body)
{
	g_auto(Reply) reply = {0};

	raw_upgrade(daemon, tls, extra, &reply);
	g_assert_cmpuint(reply.status, ==, 401);
	g_assert_cmpstr(reply.content_type, ==, "text/plain; charset=utf-8");
	g_assert_cmpstr(reply.body, ==, body);
}

static void
assert_refused_bearer(EsdTestDaemon *daemon, const gchar *token, const gchar *body)
{
	g_autofree gchar *extra = g_strdup_printf("Authorization: Bearer %s\r\n", token);
	g_ptr_array_add(sent, g_strdup(token));
	assert_refused(daemon, FALSE, extra, body);
}

/* the token opens a connection that does the whole handshake */
static void
assert_accepted(EsdTestDaemon *daemon, const gchar *authorization)
{
	const gchar *headers[] = {"Authorization", authorization, NULL};
	g_autoptr(EsdTestWsClient) client = NULL;
	g_autoptr(GError) error = NULL;
	guint status = 0;

	g_ptr_array_add(sent, g_strdup(authorization));
	client = esd_test_ws_client_connect_full(esd_test_daemon_get_url(daemon),
						 NULL,
						 headers,
						 certificate,
						 &status,
						 &error);
	g_assert_no_error(error);
	g_assert_cmpuint(status, ==, 101);
	esd_test_scenario_environment_info(ESD_TEST_PEER(client));
	esd_test_peer_assert_alive(ESD_TEST_PEER(client));
	esd_test_ws_client_close(client);
}

/* capability tokens */
typedef struct {
	const gchar *name;
	DaemonKind daemon;
	const gchar *extra; /* header lines */
	const gchar *refusal;
} TokenCase;

#define TF	     DAEMON_TOKEN_FILE
#define TS	     DAEMON_TOKEN_SHA256
#define AUTHZ	     "Authorization: "
#define MISSING	     "missing websocket bearer token"
#define BAD_HEADER   "invalid authorization header"
#define WRONG_BEARER "invalid websocket bearer token"

static const TokenCase token_cases[] = {
    {"missing-header", TF, NULL, MISSING},
    {"basic", TF, AUTHZ "Basic dXNlcjpwYXNz\r\n", BAD_HEADER},
    {"bare-token", TF, AUTHZ TOKEN "\r\n", BAD_HEADER},
    {"empty-bearer", TF, AUTHZ "Bearer  \r\n", BAD_HEADER},
    {"tab", TF, AUTHZ "Bearer\t" TOKEN "\r\n", BAD_HEADER},
    {"two-headers", TF, AUTHZ "Bearer " TOKEN "\r\n" AUTHZ "Bearer " TOKEN "\r\n", BAD_HEADER},
    {"wrong", TF, AUTHZ "Bearer nope\r\n", WRONG_BEARER},
    {"prefix", TF, AUTHZ "Bearer capability-token-8f1d2c3b4\r\n", WRONG_BEARER},
    {"longer", TF, AUTHZ "Bearer " TOKEN "x\r\n", WRONG_BEARER},
    {"digest-as-token", TS, AUTHZ "Bearer " TOKEN_SHA256 "\r\n", WRONG_BEARER},
    {"sha256-missing", TS, NULL, MISSING},
    {NULL},
};

static void
test_token_refused(gconstpointer user_data)
{
	const TokenCase *row = user_data;
	assert_refused(get_daemon(row->daemon), FALSE, row->extra, row->refusal);
}

/* the token file ends with a newline, which is not part of the token */
static void
test_token_file_trimmed(void)
{
	assert_accepted(get_daemon(DAEMON_TOKEN_FILE), "Bearer " TOKEN);
	/* any case of the scheme, white space around the token */
	assert_accepted(get_daemon(DAEMON_TOKEN_FILE), "bEARER   " TOKEN "  ");
}

static void
test_token_sha256(void)
{
	assert_accepted(get_daemon(DAEMON_TOKEN_SHA256), "Bearer " TOKEN);
}

/* /readyz stays open, Origin is still refused, and a bad handshake is a 400 first */
static void
test_routes_with_auth(void)
{
	EsdTestDaemon *daemon = get_daemon(DAEMON_TOKEN_FILE);
	g_autofree gchar *readyz = esd_test_daemon_get_http_url(daemon, "/readyz");
	g_autofree gchar *root = esd_test_daemon_get_http_url(daemon, "/");
	g_autofree gchar *body = NULL;
	const gchar *headers[] = {"Authorization", "Bearer " TOKEN, NULL};
	g_autoptr(EsdTestWsClient) client = NULL;
	g_autoptr(GError) error = NULL;
	g_auto(Reply) reply = {0};
	guint status = 0;

	g_assert_cmpuint(esd_test_http_request("GET", readyz, NULL, NULL), ==, 200);
	g_assert_cmpuint(esd_test_http_request("GET", root, NULL, &body), ==, 400);
	g_assert_cmpstr(body, ==, "Connection header did not include 'upgrade'");
	client = esd_test_ws_client_connect_full(esd_test_daemon_get_url(daemon),
						 "http://evil.example",
						 headers,
						 NULL,
						 &status,
						 &error);
	g_assert_null(client);
	g_assert_cmpuint(status, ==, 403);
	{
		g_autoptr(GIOStream) stream = raw_connect(esd_test_daemon_get_port(daemon), FALSE);
		raw_exchange(stream,
			     "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n"
			     "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\r\n",
			     &reply);
	}
	g_assert_cmpuint(reply.status, ==, 400);
}

/* JWTs */
typedef enum { GOOD, WRONG_KEY, UNSIGNED, RAW } JwtSigning;

typedef struct {
	const gchar *name;
	DaemonKind daemon;
	const gchar *header; /* NULL: HS256 */
	const gchar *claims; /* ' stands for ", and NOW+N / NOW-N for a time */
	JwtSigning sign;
	const gchar *refusal; /* NULL: accepted */
} JwtCase;

#define JC	  DAEMON_JWT_CLAIMS
#define JP	  DAEMON_JWT_PLAIN
#define INVALID	  "invalid websocket jwt"
#define EXPIRED	  "expired websocket jwt"
#define NOT_YET	  "websocket jwt is not valid yet"
#define ISS_WRONG "websocket jwt issuer mismatch"
#define AUD_WRONG "websocket jwt audience mismatch"
#define EXP	  "'exp':NOW+600"
#define ISS	  "'iss':'" ISSUER "'"
#define AUD	  "'aud':'" AUDIENCE "'"
#define ALL	  "{" EXP "," ISS "," AUD "}"

static const JwtCase jwt_cases[] = {
    {"valid", JC, NULL, ALL, GOOD, NULL},
    {"audience-array", JC, NULL, "{" EXP "," ISS ",'aud':['x','" AUDIENCE "']}", GOOD, NULL},
    {"bad-signature", JC, NULL, ALL, WRONG_KEY, INVALID},
    {"alg-none", JC, "{'alg':'none'}", ALL, UNSIGNED, INVALID},
    {"alg-none-signed", JC, "{'alg':'none'}", ALL, GOOD, INVALID},
    {"alg-hs512", JC, "{'alg':'HS512'}", ALL, GOOD, INVALID},
    {"alg-missing", JC, "{'typ':'JWT'}", ALL, GOOD, INVALID},
    {"malformed", JC, NULL, "not-a-jwt", RAW, INVALID},
    {"malformed-parts", JC, NULL, "e30.e30.e30.e30", RAW, INVALID},
    {"malformed-base64", JC, NULL, "e30=.e30=.AAAA", RAW, INVALID},
    {"claims-not-object", JC, NULL, "[1]", GOOD, INVALID},
    {"missing-exp", JC, NULL, "{" ISS "," AUD "}", GOOD, INVALID},
    {"exp-string", JC, NULL, "{'exp':'1'," ISS "," AUD "}", GOOD, INVALID},
    {"exp-float", JC, NULL, "{'exp':1.5," ISS "," AUD "}", GOOD, INVALID},
    /* the reference's order: the time first, then the issuer, then the audience */
    {"expired", JC, NULL, "{'exp':NOW-120,'iss':'x'}", GOOD, EXPIRED},
    {"expired-within-skew", JC, NULL, "{'exp':NOW-30," ISS "," AUD "}", GOOD, NULL},
    {"nbf-future", JC, NULL, "{'nbf':NOW+120," EXP ",'iss':'x'}", GOOD, NOT_YET},
    {"nbf-within-skew", JC, NULL, "{'nbf':NOW+30," EXP "," ISS "," AUD "}", GOOD, NULL},
    {"issuer-mismatch", JC, NULL, "{" EXP ",'iss':'other','aud':'x'}", GOOD, ISS_WRONG},
    {"issuer-missing", JC, NULL, "{" EXP "," AUD "}", GOOD, ISS_WRONG},
    {"issuer-null", JC, NULL, "{" EXP ",'iss':null," AUD "}", GOOD, ISS_WRONG},
    {"issuer-number", JC, NULL, "{" EXP ",'iss':5," AUD "}", GOOD, INVALID},
    {"audience-mismatch", JC, NULL, "{" EXP "," ISS ",'aud':'other'}", GOOD, AUD_WRONG},
    {"audience-array-mismatch", JC, NULL, "{" EXP "," ISS ",'aud':['x','y']}", GOOD, AUD_WRONG},
    {"audience-missing", JC, NULL, "{" EXP "," ISS "}", GOOD, AUD_WRONG},
    {"audience-mixed-array", JC, NULL, "{" EXP "," ISS ",'aud':['" AUDIENCE "',5]}", GOOD, INVALID},
    {"plain-valid", JP, NULL, "{" EXP "}", GOOD, NULL},
    {"plain-default-skew", JP, NULL, "{'exp':NOW-15,'nbf':NOW+15}", GOOD, NULL},
    {"plain-skew-expired", JP, NULL, "{'exp':NOW-45}", GOOD, EXPIRED},
    {"plain-skew-not-yet", JP, NULL, "{" EXP ",'nbf':NOW+45}", GOOD, NOT_YET},
    {"plain-audience-number", JP, NULL, "{" EXP ",'aud':5}", GOOD, INVALID},
    {NULL},
};

static gchar *
base64url(const guint8 *data, gsize len)
{
	gchar *text = g_base64_encode(data, len);
	gchar *pad = strchr(text, '=');

	if (pad != NULL)
		*pad = '\0';
	g_strdelimit(text, "+", '-');
	g_strdelimit(text, "/", '_');
	return text;
}

static gboolean
expand_now_cb(const GMatchInfo *match, GString *out, gpointer user_data)
{
	g_autofree gchar *offset = g_match_info_fetch(match, 1);
	gint64 now = g_get_real_time() / G_USEC_PER_SEC;
	g_string_append_printf(out, "%" G_GINT64_FORMAT, now + g_ascii_strtoll(offset, NULL, 10));
	return FALSE;
}

static gchar *
make_jwt(const JwtCase *row)
{
	g_autoptr(GRegex) regex = g_regex_new("NOW([+-][0-9]+)", 0, 0, NULL);
	g_autofree gchar *claims = NULL;
	g_autofree gchar *header = NULL;
	g_autofree gchar *payload = NULL;
	g_autofree gchar *input = NULL;
	g_autofree gchar *signature = NULL;
	const gchar *key = row->sign == WRONG_KEY ? SECRET "x" : SECRET;
	g_autofree gchar *header_json =
	    g_strdup(row->header != NULL ? row->header : "{'alg':'HS256','typ':'JWT'}");
	guint8 mac[EVP_MAX_MD_SIZE];
	guint mac_len = 0;

	if (row->sign == RAW)
		return g_strdup(row->claims);
	claims = g_regex_replace_eval(regex, row->claims, -1, 0, 0, expand_now_cb, NULL, NULL);
	g_strdelimit(claims, "'", '"');
	g_strdelimit(header_json, "'", '"');
	header = base64url((const guint8 *)header_json, strlen(header_json));
	payload = base64url((const guint8 *)claims, strlen(claims));
	input = g_strdup_printf("%s.%s", header, payload);
	if (row->sign == UNSIGNED)
		return g_strdup_printf("%s.", input);
	g_assert_nonnull(HMAC(EVP_sha256(),
			      key,
			      (int)strlen(key),
			      (const guchar *)input,
			      strlen(input),
			      mac,
			      &mac_len));
	signature = base64url(mac, mac_len);
	return g_strdup_printf("%s.%s", input, signature);
}

static void
test_jwt(gconstpointer user_data)
{
	const JwtCase *row = user_data;
	EsdTestDaemon *daemon = get_daemon(row->daemon);
	g_autofree gchar *jwt = make_jwt(row);
	g_autofree gchar *authorization = g_strdup_printf("Bearer %s", jwt);

	if (row->refusal == NULL)
		assert_accepted(daemon, authorization);
	else
		assert_refused_bearer(daemon, jwt, row->refusal);
}

/* TLS: the whole protocol over wss://, large messages both ways */
static void
test_wss(void)
{
	EsdTestDaemon *daemon = get_daemon(DAEMON_WSS);
	const gchar *headers[] = {"Authorization", "Bearer " TOKEN, NULL};
	g_autoptr(EsdTestWsClient) client = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *path = scratch_path("big");
	g_autofree gchar *data = NULL;
	g_autofree gchar *request = NULL;
	g_autoptr(JsonNode) reply = NULL;
	guint status = 0;
	gsize len = 3 * 1024 * 1024;

	g_assert_true(g_str_has_prefix(esd_test_daemon_get_url(daemon), "wss://127.0.0.1:"));
	client = esd_test_ws_client_connect_full(esd_test_daemon_get_url(daemon),
						 NULL,
						 headers,
						 certificate,
						 &status,
						 &error);
	g_assert_no_error(error);
	g_free(esd_test_peer_handshake(ESD_TEST_PEER(client)));
	{
		g_autofree guint8 *bytes = g_malloc(len);
		for (gsize i = 0; i < len; i++)
			bytes[i] = (guint8)(i * 7 + i / 251);
		data = g_base64_encode(bytes, len);
	}
	request = g_strdup_printf("{\"id\":2,\"method\":\"fs/writeFile\",\"params\":{\"path\":"
				  "\"file://%s\",\"dataBase64\":\"%s\"}}",
				  path,
				  data);
	esd_test_peer_assert_call(ESD_TEST_PEER(client), request, "{\"id\":2,\"result\":{}}");
	g_free(request);
	request = g_strdup_printf(
	    "{\"id\":3,\"method\":\"fs/readFile\",\"params\":{\"path\":\"file://%s\"}}",
	    path);
	reply = esd_test_peer_call(ESD_TEST_PEER(client), request);
	g_assert_cmpstr(esd_test_json_get_string(reply, "result.dataBase64"), ==, data);
	esd_test_peer_assert_alive(ESD_TEST_PEER(client));
	esd_test_ws_client_close(client);
}

static void
test_wss_refusals(void)
{
	EsdTestDaemon *daemon = get_daemon(DAEMON_WSS);
	g_autofree gchar *plain_url = NULL;
	g_autoptr(EsdTestWsClient) client = NULL;
	g_autoptr(GError) error = NULL;
	g_auto(Reply) reply = {0};
	guint status = 0;

	assert_refused(daemon, TRUE, NULL, "missing websocket bearer token");
	assert_refused(daemon,
		       TRUE,
		       "Authorization: Bearer nope\r\n",
		       "invalid websocket bearer token");
	{
		g_autoptr(GIOStream) stream = raw_connect(esd_test_daemon_get_port(daemon), TRUE);
		raw_exchange(stream, "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n", &reply);
		g_assert_cmpuint(reply.status, ==, 200);
	}
	/* plain WebSocket on the TLS port gets nowhere, and the daemon goes on */
	plain_url = g_strdup_printf("ws://127.0.0.1:%u", esd_test_daemon_get_port(daemon));
	client = esd_test_ws_client_connect(plain_url, NULL, &status, &error);
	g_assert_null(client);
	g_assert_nonnull(error);
	g_assert_cmpuint(status, !=, 101);
	assert_accepted(daemon, "Bearer " TOKEN);
}

/* the daemons stop cleanly on SIGTERM, which sanitizer builds check for leaks */
static void
test_clean_exit(void)
{
	for (guint kind = 0; kind < DAEMON_LAST; kind++) {
		if (daemons[kind] == NULL)
			continue;
#ifdef __SANITIZE_ADDRESS__
		/* see LSAN_TLS_WORKAROUND: the daemon's handshakes ran in worker threads too */
		if (kind == DAEMON_WSS)
			continue;
#endif
		esd_test_daemon_send_signal(daemons[kind], SIGTERM);
		esd_test_daemon_assert_exit_code(daemons[kind], 0, ESD_TEST_TIMEOUT_MS);
	}
}

/* the daemons logged every refusal, and not one credential */
static void
test_no_secrets_in_logs(void)
{
	for (guint kind = 0; kind < DAEMON_LAST; kind++) {
		const gchar *log;
		if (daemons[kind] == NULL)
			continue;
		/* let the last lines arrive */
		for (guint i = 0; i < 10; i++)
			esd_test_iterate(20);
		log = esd_test_daemon_get_stderr(daemons[kind]);
		g_assert_nonnull(strstr(log, "-DEBUG: "));
		g_assert_nonnull(strstr(log, "refusing the upgrade: "));
		g_assert_null(strstr(log, TOKEN));
		g_assert_null(strstr(log, TOKEN_SHA256));
		g_assert_null(strstr(log, SECRET));
		for (guint i = 0; i < sent->len; i++) {
			const gchar *credential = g_ptr_array_index(sent, i);
			const gchar *dot = strrchr(credential, '.');
			if (strstr(log, credential) != NULL)
				g_error("the log of daemon %u shows a credential: %s",
					kind,
					credential);
			/* no JWT signature either */
			if (dot != NULL && strlen(dot) > 8)
				g_assert_null(strstr(log, dot + 1));
		}
		g_assert_cmpuint(esd_test_daemon_get_warning_count(daemons[kind]), ==, 0);
	}
}

#ifdef __SANITIZE_ADDRESS__
/* threads of this process: the main one, GLib's worker, and any still ending */
static guint
count_threads(void)
{
	g_autoptr(GDir) dir = g_dir_open("/proc/self/task", 0, NULL);
	guint n = 0;

	while (dir != NULL && g_dir_read_name(dir) != NULL)
		n++;
	return n;
}
#endif

int
main(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *cert_file = NULL;
	g_autofree gchar *key_file = NULL;
	gint ret;

	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	signal(SIGPIPE, SIG_IGN);
	scratch = g_dir_make_tmp("esd-ws-auth-XXXXXX", &error);
	g_assert_no_error(error);
	write_scratch("token", TOKEN "\n");
	write_scratch("secret", SECRET "\n");
	write_scratch("blank", " \n\t\n");
	cert_file = scratch_path("cert.pem");
	key_file = scratch_path("key.pem");
	esd_test_make_certificate(cert_file, key_file);
	certificate = g_tls_certificate_new_from_file(cert_file, &error);
	g_assert_no_error(error);
	sent = g_ptr_array_new_with_free_func(g_free);

	for (const TokenCase *row = token_cases; row->name != NULL; row++) {
		g_autofree gchar *path = g_strconcat(AUTH_TEST "token/", row->name, NULL);
		g_test_add_data_func(path, row, test_token_refused);
	}
	g_test_add_func(AUTH_TEST "token/file-trimmed", test_token_file_trimmed);
	g_test_add_func(AUTH_TEST "token/sha256", test_token_sha256);
	g_test_add_func(AUTH_TEST "token/routes", test_routes_with_auth);
	for (const JwtCase *row = jwt_cases; row->name != NULL; row++) {
		g_autofree gchar *path = g_strconcat(AUTH_TEST "jwt/", row->name, NULL);
		g_test_add_data_func(path, row, test_jwt);
	}
	g_test_add_func(AUTH_TEST "wss/protocol", test_wss);
	g_test_add_func(AUTH_TEST "wss/refusals", test_wss_refusals);
	/* last (GTest runs suites in the order they appear): it reads what the daemons logged */
	g_test_add_func(AUTH_TEST "logs/no-secrets", test_no_secrets_in_logs);
	g_test_add_func(AUTH_TEST "logs/clean-exit", test_clean_exit);

	ret = g_test_run();
#ifdef __SANITIZE_ADDRESS__
	/*
	 * LSAN_TLS_WORKAROUND: glib-networking runs async TLS handshakes in GTask
	 * worker threads, and the LeakSanitizer of GCC 12 crashes ("Tracer caught
	 * signal 11") scanning the dynamic TLS such a thread got from gnutls. Idle
	 * workers end half a second after their last task: wait for them.
	 */
	g_thread_pool_set_max_unused_threads(0);
	for (guint i = 0; i < 40 && count_threads() > 2; i++)
		g_usleep(50 * 1000);
#endif
	for (guint kind = 0; kind < DAEMON_LAST; kind++)
		g_clear_object(&daemons[kind]);
	g_clear_object(&certificate);
	g_clear_pointer(&sent, g_ptr_array_unref);
	remove_scratch();
	return ret;
}
