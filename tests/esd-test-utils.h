/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

/*
 * Helpers shared by the tests: bounded waits on the default main context,
 * structural JSON assertions, the real execserverd binary as a subprocess,
 * and a synchronous WebSocket client. Every wait has a timeout, so a test can
 * fail but never hang.
 */

/* the longest any single wait may take */
#define ESD_TEST_TIMEOUT_MS 5000

/* close code reported when the peer dropped TCP without a Close frame */
#define ESD_TEST_WS_CLOSE_NO_FRAME SOUP_WEBSOCKET_CLOSE_ABNORMAL

void
esd_test_iterate(guint max_ms);

/**
 * ESD_WAIT_UNTIL:
 * @cond: an expression, evaluated between main-context iterations
 * @timeout_ms: how long to wait at most
 *
 * Iterates the default main context until @cond is true; the test fails
 * when @timeout_ms passes first.
 */
#define ESD_WAIT_UNTIL(cond, timeout_ms)                                                           \
	G_STMT_START                                                                               \
	{                                                                                          \
		gint64 esd_wait_deadline_ = g_get_monotonic_time() + (gint64)(timeout_ms)*1000;    \
		while (!(cond)) {                                                                  \
			if (g_get_monotonic_time() >= esd_wait_deadline_) {                        \
				g_assertion_message(G_LOG_DOMAIN,                                  \
						    __FILE__,                                      \
						    __LINE__,                                      \
						    G_STRFUNC,                                     \
						    "timed out waiting for: " #cond);              \
				break;                                                             \
			}                                                                          \
			esd_test_iterate(50);                                                      \
		}                                                                                  \
	}                                                                                          \
	G_STMT_END

void
esd_test_known_bug(const gchar *format, ...) G_GNUC_PRINTF(1, 2);
gboolean
esd_test_take_known_bug(void);

/* JSON */
JsonNode *
esd_test_json_parse(const gchar *json);
gchar *
esd_test_json_to_string(JsonNode *node);
JsonNode *
esd_test_json_get(JsonNode *node, const gchar *path);
const gchar *
esd_test_json_get_string(JsonNode *node, const gchar *path);
gint64
esd_test_json_get_int(JsonNode *node, const gchar *path);
gboolean
esd_test_json_equal(JsonNode *a, JsonNode *b);
void
esd_test_assert_json_eq_impl(const gchar *file,
			     gint line,
			     const gchar *func,
			     JsonNode *actual,
			     const gchar *expected_json);

/**
 * esd_assert_json_eq:
 * @actual_json: JSON text
 * @expected_json: JSON text
 *
 * Asserts that both texts hold the same JSON value: member order does not
 * matter, value types do (`1` is not `1.0` and not `"1"`).
 */
#define esd_assert_json_eq(actual_json, expected_json)                                             \
	G_STMT_START                                                                               \
	{                                                                                          \
		g_autoptr(JsonNode) esd_actual_node_ = esd_test_json_parse(actual_json);           \
		esd_test_assert_json_eq_impl(__FILE__,                                             \
					     __LINE__,                                             \
					     G_STRFUNC,                                            \
					     esd_actual_node_,                                     \
					     expected_json);                                       \
	}                                                                                          \
	G_STMT_END

/**
 * esd_assert_json_node_eq:
 * @actual_node: a #JsonNode
 * @expected_json: JSON text
 *
 * Like esd_assert_json_eq() for a parsed value.
 */
#define esd_assert_json_node_eq(actual_node, expected_json)                                        \
	esd_test_assert_json_eq_impl(__FILE__, __LINE__, G_STRFUNC, actual_node, expected_json)

/*
 * EsdTestPeer: one protocol connection to the daemon, whatever the
 * transport. send() writes one message (stdio adds the newline), receive()
 * returns the next message or %NULL once the daemon closed the connection,
 * assert_dropped() checks the daemon ended the connection without a reply.
 */
#define ESD_TYPE_TEST_PEER (esd_test_peer_get_type())
G_DECLARE_INTERFACE(EsdTestPeer, esd_test_peer, ESD, TEST_PEER, GObject)

struct _EsdTestPeerInterface {
	GTypeInterface parent_iface;
	void (*send)(EsdTestPeer *self, const gchar *data, gsize len);
	GBytes *(*receive)(EsdTestPeer *self, guint timeout_ms);
	void (*assert_dropped)(EsdTestPeer *self, guint timeout_ms);
	const gchar *(*get_parse_error_prefix)(EsdTestPeer *self);
};

void
esd_test_peer_send(EsdTestPeer *self, const gchar *data, gsize len);
void
esd_test_peer_send_text(EsdTestPeer *self, const gchar *text);
GBytes *
esd_test_peer_receive(EsdTestPeer *self, guint timeout_ms);
JsonNode *
esd_test_peer_receive_json(EsdTestPeer *self);
void
esd_test_peer_assert_dropped(EsdTestPeer *self);
const gchar *
esd_test_peer_get_parse_error_prefix(EsdTestPeer *self);
JsonNode *
esd_test_peer_call(EsdTestPeer *self, const gchar *request);
void
esd_test_peer_assert_call(EsdTestPeer *self, const gchar *request, const gchar *expected_reply);
void
esd_test_peer_assert_error(EsdTestPeer *self,
			   const gchar *request,
			   const gchar *expected_id,
			   gint64 code,
			   const gchar *message_pattern);
void
esd_test_peer_assert_reply_error(JsonNode *reply,
				 const gchar *expected_id,
				 gint64 code,
				 const gchar *message_pattern);
void
esd_test_peer_assert_malformed(EsdTestPeer *self,
			       const gchar *data,
			       gsize len,
			       const gchar *detail_pattern);
void
esd_test_peer_assert_malformed_reply(EsdTestPeer *self,
				     JsonNode *reply,
				     const gchar *detail_pattern);
void
esd_test_peer_assert_refused(EsdTestPeer *self,
			     const gchar *data,
			     gsize len,
			     const gchar *expected_id,
			     const gchar *detail_pattern);
void
esd_test_peer_assert_refused_reply(EsdTestPeer *self,
				   JsonNode *reply,
				   const gchar *expected_id,
				   const gchar *detail_pattern);
gchar *
esd_test_peer_initialize(EsdTestPeer *self, const gchar *resume_session_id);
gchar *
esd_test_peer_handshake(EsdTestPeer *self);
void
esd_test_peer_assert_alive(EsdTestPeer *self);

/* protocol checks */
void
esd_test_assert_uuid_v4(const gchar *text);
void
esd_test_assert_environment_info(JsonNode *info);

/* where a connection is before the exchange under test */
typedef enum {
	ESD_TEST_STAGE_NEW,	    /* nothing sent yet */
	ESD_TEST_STAGE_INITIALIZED, /* initialize answered, no initialized sent */
	ESD_TEST_STAGE_READY,	    /* initialize and initialized done */
} EsdTestStage;

typedef enum {
	ESD_TEST_EXCHANGE_NONE = 0,
	ESD_TEST_EXCHANGE_MALFORMED = 1 << 0, /* id -1, -32600, transport prefix + message */
	ESD_TEST_EXCHANGE_FATAL = 1 << 1,     /* the daemon drops the connection */
	ESD_TEST_EXCHANGE_PENDING = 1 << 2,   /* skip while the method answers -32601 */
} EsdTestExchangeFlags;

/**
 * EsdTestExchange:
 * @name: the last component of the test path
 * @stage: the state the connection is brought to first
 * @request: the message sent
 * @request_len: its length, or -1 for strlen()
 * @reply: the exact reply expected, or %NULL when an error is
 * @code: the error code expected
 * @message: the error message expected, a g_pattern_match_simple() pattern
 * @flags: #EsdTestExchangeFlags
 * @known_bug: (nullable): if set, a mismatch is reported with
 *   esd_test_known_bug() and this text instead of failing
 *
 * One row of a table test: one message and what the daemon must answer.
 */
typedef struct {
	const gchar *name;
	EsdTestStage stage;
	const gchar *request;
	gssize request_len;
	const gchar *reply;
	gint64 code;
	const gchar *message;
	guint flags;
	const gchar *known_bug;
} EsdTestExchange;

void
esd_test_peer_run_exchange(EsdTestPeer *self, const EsdTestExchange *exchange);

/* scenarios run over every transport */
void
esd_test_scenario_initialize_result(EsdTestPeer *peer);
void
esd_test_scenario_environment_info(EsdTestPeer *peer);
void
esd_test_scenario_id_escaped_nul(EsdTestPeer *peer);
void
esd_test_scenario_lone_surrogate(EsdTestPeer *peer);
void
esd_test_scenario_deep_nesting(EsdTestPeer *peer);
void
esd_test_scenario_initialize_jsonrpc_member(EsdTestPeer *peer);
void
esd_test_scenario_initialize_unknown_members(EsdTestPeer *peer);
void
esd_test_scenario_initialize_retry(EsdTestPeer *peer);
void
esd_test_scenario_initialized_twice(EsdTestPeer *peer);
void
esd_test_scenario_initialized_params_ignored(EsdTestPeer *peer);

/* transport-neutral tables, each ending with a row whose name is NULL */
extern const EsdTestExchange esd_test_exchanges_handshake[];
extern const EsdTestExchange esd_test_exchanges_envelope[];
extern const EsdTestExchange esd_test_exchanges_malformed[];
extern const EsdTestExchange esd_test_exchanges_fatal[];

/* the execserverd binary ($ESD_TEST_DAEMON) as a subprocess */
#define ESD_TYPE_TEST_DAEMON (esd_test_daemon_get_type())
G_DECLARE_FINAL_TYPE(EsdTestDaemon, esd_test_daemon, ESD, TEST_DAEMON, GObject)

EsdTestDaemon *
esd_test_daemon_new_full(const gchar *const *args,
			 const gchar *const *envp_extra,
			 const gchar *cwd,
			 gboolean read_url);
EsdTestDaemon *
esd_test_daemon_new_stdio(const gchar *const *extra_args);
EsdTestDaemon *
esd_test_daemon_new_ws(const gchar *const *extra_args);
const gchar *
esd_test_daemon_get_url(EsdTestDaemon *self);
guint16
esd_test_daemon_get_port(EsdTestDaemon *self);
GPid
esd_test_daemon_get_pid(EsdTestDaemon *self);
gchar *
esd_test_daemon_get_http_url(EsdTestDaemon *self, const gchar *path);
void
esd_test_daemon_write(EsdTestDaemon *self, const gchar *data, gsize len);
gchar *
esd_test_daemon_read_line(EsdTestDaemon *self, guint timeout_ms);
gboolean
esd_test_daemon_wait_stdout_eof(EsdTestDaemon *self, guint timeout_ms);
void
esd_test_daemon_close_stdin(EsdTestDaemon *self);
void
esd_test_daemon_send_signal(EsdTestDaemon *self, gint signum);
gboolean
esd_test_daemon_is_running(EsdTestDaemon *self);
gboolean
esd_test_daemon_wait_exit(EsdTestDaemon *self, guint timeout_ms);
gint
esd_test_daemon_get_exit_code(EsdTestDaemon *self);
void
esd_test_daemon_assert_exit_code(EsdTestDaemon *self, gint exit_code, guint timeout_ms);
guint
esd_test_daemon_get_warning_count(EsdTestDaemon *self);
const gchar *
esd_test_daemon_get_stderr(EsdTestDaemon *self);

/* a synchronous WebSocket client */
#define ESD_TYPE_TEST_WS_CLIENT (esd_test_ws_client_get_type())
G_DECLARE_FINAL_TYPE(EsdTestWsClient, esd_test_ws_client, ESD, TEST_WS_CLIENT, GObject)

EsdTestWsClient *
esd_test_ws_client_connect(const gchar *url, const gchar *origin, guint *status, GError **error);
EsdTestWsClient *
esd_test_ws_client_connect_full(const gchar *url,
				const gchar *origin,
				const gchar *const *headers,
				GTlsCertificate *certificate,
				guint *status,
				GError **error);
EsdTestWsClient *
esd_test_ws_client_new(const gchar *url);
void
esd_test_ws_client_send(EsdTestWsClient *self,
			SoupWebsocketDataType type,
			const gchar *data,
			gsize len);
void
esd_test_ws_client_send_raw(EsdTestWsClient *self, const guint8 *data, gsize len);
GBytes *
esd_test_ws_client_build_frame(guint8 opcode, gboolean fin, const gchar *payload, gsize len);
gushort
esd_test_ws_client_wait_closed(EsdTestWsClient *self, guint timeout_ms);
void
esd_test_ws_client_close(EsdTestWsClient *self);
void
esd_test_ws_client_abort(EsdTestWsClient *self);
gboolean
esd_test_ws_client_is_open(EsdTestWsClient *self);
guint16
esd_test_ws_client_get_local_port(EsdTestWsClient *self);

/* plain HTTP and one-shot runs of the binary */
guint
esd_test_http_request(const gchar *method,
		      const gchar *url,
		      const gchar *const *headers,
		      gchar **body);
gint
esd_test_run_daemon(const gchar *const *args, gchar **stdout_text, gchar **stderr_text);

G_END_DECLS
