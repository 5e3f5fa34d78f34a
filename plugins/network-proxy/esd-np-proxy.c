/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <gio/gunixfdmessage.h>
#include <glib-unix.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <string.h>

#include "esd-np-forward.h"
#include "esd-np-io.h"
#include "esd-np-listen.h"
#include "esd-np-mitm.h"
#include "esd-np-peer.h"
#include "esd-np-policy.h"
#include "esd-np-proxy.h"
#include "esd-np-relay.h"
#include "esd-np-request.h"

/**
 * EsdNpProxy:
 *
 * The managed proxy of one launched process: a listener on a loopback port
 * of its own, and a thread per client connection (esd-np-listen.c: the one
 * that accepted it) that reads the request head, applies the policy, dials
 * the destination and relays (esd-np-relay.c). The policy runs in the connection's thread;
 * what needs the session (the `network/policyDecision` notification, the
 * `network/policyRequest` to the client) is handed to the main context, the
 * only one that touches the session.
 *
 * The order of the policy is the reference's: a deny pattern; an unlisted
 * local literal (`not_allowed_local`); the decider for the other unlisted
 * hosts and for allowed review domains (`not_allowed` without one); then a
 * local literal passes only if an allow pattern without a wildcard names
 * it, else `not_allowed_local`.
 * An allowed name is resolved once and every address checked: the proxy
 * connects only to those addresses, so a second lookup (DNS rebinding)
 * cannot bring in a local one. `allowLocalBinding` skips the local checks.
 */

/* an HTTP proxy the daemon itself is told to use (its HTTP(S)_PROXY) */
typedef struct {
	gchar *host;
	guint16 port;
	gchar *authorization; /* "Basic ..." or NULL */
} EsdNpUpstream;

static void
esd_np_upstream_free(EsdNpUpstream *self)
{
	if (self == NULL)
		return;
	g_free(self->host);
	g_free(self->authorization);
	g_free(self);
}

/* http://[user[:password]@]host[:port][/]; NULL for any other scheme, as Codex (HTTP proxies only)
 */
static EsdNpUpstream *
esd_np_upstream_parse(const gchar *url)
{
	g_autoptr(GUri) uri = NULL;
	EsdNpUpstream *self;

	if (url == NULL || url[0] == '\0')
		return NULL;
	uri = g_uri_parse(url, G_URI_FLAGS_ENCODED | G_URI_FLAGS_HAS_PASSWORD, NULL);
	if (uri == NULL || g_strcmp0(g_uri_get_scheme(uri), "http") != 0 ||
	    g_uri_get_host(uri) == NULL)
		return NULL;
	self = g_new0(EsdNpUpstream, 1);
	self->host = g_strdup(g_uri_get_host(uri));
	self->port = g_uri_get_port(uri) > 0 ? (guint16)g_uri_get_port(uri) : 80;
	if (g_uri_get_user(uri) != NULL) {
		g_autofree gchar *user = g_uri_unescape_string(g_uri_get_user(uri), NULL);
		g_autofree gchar *password =
		    g_uri_get_password(uri) != NULL
			? g_uri_unescape_string(g_uri_get_password(uri), NULL)
			: g_strdup("");
		g_autofree gchar *pair = g_strdup_printf("%s:%s", user, password);
		g_autofree gchar *encoded = g_base64_encode((const guchar *)pair, strlen(pair));
		self->authorization = g_strdup_printf("Basic %s", encoded);
	}
	return self;
}

/* the first of the daemon's variables that is set */
static EsdNpUpstream *
esd_np_upstream_from_env(const gchar *const *names)
{
	for (guint i = 0; names[i] != NULL; i++) {
		const gchar *value = g_getenv(names[i]);
		if (value != NULL && value[0] != '\0')
			return esd_np_upstream_parse(value);
	}
	return NULL;
}

struct _EsdNpProxy {
	GObject parent_instance;
	EsdNpConfig *config;
	ErpcSession *session;  /* main context only; NULL once stopped */
	ErpcLaunch *launch;    /* main context only, not a reference; NULL once stopped */
	gint root_pid;	       /* atomic: the launch's supervisor, once known */
	EsdNpPeerCache *peers; /* the tree's process that held the last client socket */
	gchar *process_id;
	GMainContext *main_context;
	EsdNpNotes *notes;   /* the plugin's: the decisions on their way to the client */
	EsdNpListen *listen; /* NULL once stopped */
	GCancellable *cancellable;
	gboolean holds_pollfd; /* the cancellable's descriptor, made once for every wait */
	gint cancel_fd;	       /* that descriptor, or -1 */
	guint16 port;
	guint16 socks_port;    /* 0 without enableSocks5 */
	gint udp_associations; /* atomic */
	gint exited;	       /* atomic: the command has exited, its decisions are not queued */
	gint channel_fd;       /* the managed network's, or -1 */
	guint channel_source;
	/* the UDP relays the sandbox made on its loopback, idle ones; NULL without */
	GMutex udp_lock;
	GPtrArray *udp_pool;
	/* with allowUpstreamProxy: the daemon's own HTTP proxies, or NULL */
	EsdNpUpstream *upstream_http;
	EsdNpUpstream *upstream_tunnel;
	/* with credentialMasking: the launch's secrets, and the authority to intercept with */
	EsdNpCreds *creds;
	EsdNpCa *ca;
};

G_DEFINE_TYPE(EsdNpProxy, esd_np_proxy, G_TYPE_OBJECT)

#define ESD_NP_PROXY_IO_TIMEOUT	      60 /* s, for a request head and a dial */
#define ESD_NP_PROXY_IO_TIMEOUT_MS    (ESD_NP_PROXY_IO_TIMEOUT * 1000)
#define ESD_NP_PROXY_DECIDER_GRACE_MS 5000
#define ESD_NP_PROXY_MAX_LISTENERS    8

typedef struct {
	const gchar *protocol; /* http, https_connect */
	const gchar *method;
	gchar *host; /* normalized */
	guint16 port;
	gchar *client;
} EsdNpTarget;

typedef struct {
	const gchar *decision; /* allow, deny, ask */
	const gchar *source;   /* baseline_policy, decider, mode_guard */
	const gchar *scope;    /* domain, non_domain */
	gchar *reason;
	gboolean policy_override; /* the decider allowed what the list does not */
	gpointer pending;	  /* an allow not sent yet: esd_np_proxy_flush() */
} EsdNpVerdict;

static void
esd_np_target_clear(EsdNpTarget *target)
{
	g_free(target->host);
	g_free(target->client);
}

static void
esd_np_verdict_set(EsdNpVerdict *verdict,
		   const gchar *decision,
		   const gchar *source,
		   const gchar *reason)
{
	verdict->decision = decision;
	verdict->source = source;
	verdict->scope = g_str_equal(source, "mode_guard") ? "non_domain" : "domain";
	verdict->policy_override = FALSE;
	g_free(verdict->reason);
	verdict->reason = g_strdup(reason);
}

/* the body message and x-proxy-error of a block */
static const gchar *
esd_np_verdict_message(const EsdNpVerdict *verdict, const gchar **header)
{
	const gchar *reason = verdict->reason;

	if (g_str_equal(reason, "denied")) {
		*header = "blocked-by-denylist";
		return "Domain denied by the sandbox policy.";
	}
	if (g_str_equal(reason, "not_allowed")) {
		*header = "blocked-by-allowlist";
		return "Domain not in allowlist.";
	}
	if (g_str_equal(reason, "not_allowed_local")) {
		*header = "blocked-by-allowlist";
		return "Sandbox policy blocks local/private network addresses.";
	}
	if (g_str_equal(reason, "method_not_allowed")) {
		*header = "blocked-by-method-policy";
		return "Method not allowed in limited mode.";
	}
	if (g_str_equal(reason, "mitm_required")) {
		*header = "blocked-by-method-policy";
		return "HTTPS in limited mode is not supported.";
	}
	*header = "blocked-by-policy";
	return "Request blocked by network policy.";
}

/* main context --------------------------------------------------------- */

typedef struct {
	EsdNpProxy *proxy;
	JsonNode *params;
} EsdNpNote;

static void
esd_np_note_free(gpointer data)
{
	EsdNpNote *note = data;
	g_object_unref(note->proxy);
	json_node_unref(note->params);
	g_free(note);
}

/**
 * esd_np_proxy_deliver_note:
 * @data: a note of a proxy's
 * @unused: %NULL
 *
 * Sends the note, unless its proxy has stopped: the #GFunc of the plugin's
 * #EsdNpNotes, whose #GDestroyNotify is esd_np_proxy_free_note().
 */
void
esd_np_proxy_deliver_note(gpointer data, gpointer unused)
{
	EsdNpNote *note = data;

	if (note->proxy->session != NULL)
		erpc_session_notify(note->proxy->session, "network/policyDecision", note->params);
}

void
esd_np_proxy_free_note(gpointer data)
{
	esd_np_note_free(data);
}

/* a question to the client, waited for by a connection thread */
typedef struct {
	EsdNpProxy *proxy;
	JsonNode *params;
	GMutex lock;
	GCond cond;
	gboolean done;
	JsonNode *answer;
} EsdNpAsk;

static void
esd_np_ask_finish(EsdNpAsk *ask, JsonNode *answer)
{
	g_mutex_lock(&ask->lock);
	ask->answer = answer;
	ask->done = TRUE;
	g_cond_signal(&ask->cond);
	g_mutex_unlock(&ask->lock);
}

static void
esd_np_proxy_answered_cb(GObject *source, GAsyncResult *result, gpointer data)
{
	g_autoptr(GError) error = NULL;
	JsonNode *answer = erpc_session_request_finish(ERPC_SESSION(source), result, &error);

	if (answer == NULL)
		g_debug("network/policyRequest: %s", error->message);
	esd_np_ask_finish(data, answer);
}

static gboolean
esd_np_proxy_ask_cb(gpointer data)
{
	EsdNpAsk *ask = data;
	EsdNpProxy *self = ask->proxy;

	if (self->session == NULL || g_cancellable_is_cancelled(self->cancellable)) {
		esd_np_ask_finish(ask, NULL);
		return G_SOURCE_REMOVE;
	}
	/* the decisions made before go before the question */
	esd_np_notes_flush(self->notes);
	/* the reference waits five seconds past the timeout, and honours a late answer */
	erpc_session_request_async(
	    self->session,
	    "network/policyRequest",
	    ask->params,
	    (guint)MIN(self->config->decision_timeout_ms + ESD_NP_PROXY_DECIDER_GRACE_MS,
		       G_MAXUINT),
	    self->cancellable,
	    esd_np_proxy_answered_cb,
	    ask);
	return G_SOURCE_REMOVE;
}

/* the pid of the launch, asked for in the main context */
typedef struct {
	EsdNpProxy *proxy;
	GMutex lock;
	GCond cond;
	gboolean done;
} EsdNpPidQuery;

static gboolean
esd_np_proxy_pid_cb(gpointer data)
{
	EsdNpPidQuery *query = data;

	if (query->proxy->launch != NULL)
		g_atomic_int_set(&query->proxy->root_pid,
				 (gint)erpc_launch_get_pid(query->proxy->launch));
	g_mutex_lock(&query->lock);
	query->done = TRUE;
	g_cond_signal(&query->cond);
	g_mutex_unlock(&query->lock);
	return G_SOURCE_REMOVE;
}

/* connection threads --------------------------------------------------- */

static GPid
esd_np_proxy_root_pid(EsdNpProxy *self)
{
	EsdNpPidQuery query = {.proxy = self};
	GPid pid = (GPid)g_atomic_int_get(&self->root_pid);

	if (pid > 0)
		return pid;
	g_mutex_init(&query.lock);
	g_cond_init(&query.cond);
	g_main_context_invoke(self->main_context, esd_np_proxy_pid_cb, &query);
	g_mutex_lock(&query.lock);
	while (!query.done)
		g_cond_wait(&query.cond, &query.lock);
	g_mutex_unlock(&query.lock);
	g_mutex_clear(&query.lock);
	g_cond_clear(&query.cond);
	return (GPid)g_atomic_int_get(&self->root_pid);
}

/* whether the client at 127.0.0.1:@peer_port is a process of the launch's tree, and not any
 * local process */
static gboolean
esd_np_proxy_peer_allowed(EsdNpProxy *self, guint16 peer_port, guint16 local_port)
{
	return peer_port != 0 &&
	       esd_np_peer_in_tree(peer_port, local_port, esd_np_proxy_root_pid(self), self->peers);
}

/* the time now as the reference writes it, 2026-01-02T03:04:05.678Z; no GDateTime on this path */
static gchar *
esd_np_proxy_timestamp(void)
{
	gint64 now = g_get_real_time();
	time_t seconds = (time_t)(now / G_USEC_PER_SEC);
	struct tm tm;

	if (gmtime_r(&seconds, &tm) == NULL)
		return g_strdup("1970-01-01T00:00:00.000Z");
	return g_strdup_printf("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
			       tm.tm_year + 1900,
			       tm.tm_mon + 1,
			       tm.tm_mday,
			       tm.tm_hour,
			       tm.tm_min,
			       tm.tm_sec,
			       (gint)((now / 1000) % 1000));
}

/* the network/policyDecision of @verdict, made now (its timestamp) to be sent later */
static EsdNpNote *
esd_np_proxy_note_new(EsdNpProxy *self, const EsdNpTarget *target, const EsdNpVerdict *verdict)
{
	EsdNpNote *note = g_new0(EsdNpNote, 1);
	JsonObject *obj = json_object_new();
	g_autofree gchar *timestamp = esd_np_proxy_timestamp();

	json_object_set_string_member(obj, "processId", self->process_id);
	json_object_set_string_member(obj, "timestamp", timestamp);
	json_object_set_string_member(obj, "scope", verdict->scope);
	json_object_set_string_member(obj, "decision", verdict->decision);
	json_object_set_string_member(obj, "source", verdict->source);
	json_object_set_string_member(obj, "reason", verdict->reason);
	json_object_set_string_member(obj, "protocol", target->protocol);
	json_object_set_string_member(obj, "host", target->host);
	json_object_set_int_member(obj, "port", target->port);
	/* SOCKS has no method; the reference leaves the member out */
	if (target->method != NULL)
		json_object_set_string_member(obj, "method", target->method);
	json_object_set_string_member(obj, "client", target->client);
	json_object_set_boolean_member(obj, "policyOverride", verdict->policy_override);
	note->proxy = g_object_ref(self);
	note->params = json_node_init_object(json_node_alloc(), obj);
	json_object_unref(obj);
	return note;
}

static gboolean
esd_np_proxy_deliver_cb(gpointer data)
{
	esd_np_proxy_deliver_note(data, NULL);
	return G_SOURCE_REMOVE;
}

/*
 * queued before the client gets its answer, so before the process can exit:
 * the plugin flushes the queue before the exit is reported (esd-np-notes.c).
 * Once the command has exited, what is left of its tree (a child it left
 * running) can close the process at any time: its decisions then go to the
 * main context at once, above the default priority, before the close
 */
static void
esd_np_proxy_note_post(EsdNpProxy *self, EsdNpNote *note)
{
	if (!g_atomic_int_get(&self->exited)) {
		esd_np_notes_post(self->notes, note);
		return;
	}
	g_main_context_invoke_full(self->main_context,
				   G_PRIORITY_HIGH,
				   esd_np_proxy_deliver_cb,
				   note,
				   esd_np_note_free);
}

static void
esd_np_proxy_notify(EsdNpProxy *self, const EsdNpTarget *target, const EsdNpVerdict *verdict)
{
	esd_np_proxy_note_post(self, esd_np_proxy_note_new(self, target, verdict));
}

/*
 * queues the allow that esd_np_proxy_decide() left pending in @verdict. A
 * connection thread queues it once the request is on its way upstream, off
 * the dial's path, and before any of the answer can reach the client, so
 * before the process can exit
 */
static void
esd_np_proxy_flush(EsdNpProxy *self, EsdNpVerdict *verdict)
{
	if (verdict->pending != NULL)
		esd_np_proxy_note_post(self, g_steal_pointer(&verdict->pending));
}

/* the client's decision, or deny / decider / not_allowed when there is none; TRUE if allowed */
static gboolean
esd_np_proxy_ask(EsdNpProxy *self, const EsdNpTarget *target, EsdNpVerdict *verdict)
{
	EsdNpAsk ask = {.proxy = self};
	JsonObject *params = json_object_new();
	JsonObject *request = json_object_new();
	JsonObject *answer;
	JsonObject *decision;
	const gchar *type;
	const gchar *reason = NULL;
	gboolean allowed = FALSE;

	json_object_set_string_member(request, "protocol", target->protocol);
	json_object_set_string_member(request, "host", target->host);
	json_object_set_int_member(request, "port", target->port);
	json_object_set_string_member(params, "processId", self->process_id);
	json_object_set_object_member(params, "request", request);
	ask.params = json_node_init_object(json_node_alloc(), params);
	json_object_unref(params);
	g_mutex_init(&ask.lock);
	g_cond_init(&ask.cond);
	g_main_context_invoke(self->main_context, esd_np_proxy_ask_cb, &ask);
	g_mutex_lock(&ask.lock);
	while (!ask.done)
		g_cond_wait(&ask.cond, &ask.lock);
	g_mutex_unlock(&ask.lock);
	g_mutex_clear(&ask.lock);
	g_cond_clear(&ask.cond);
	json_node_unref(ask.params);

	esd_np_verdict_set(verdict, "deny", "decider", "not_allowed");
	if (ask.answer == NULL)
		return FALSE;
	if (!JSON_NODE_HOLDS_OBJECT(ask.answer))
		goto out;
	answer = json_node_get_object(ask.answer);
	if (!json_object_has_member(answer, "decision") ||
	    !JSON_NODE_HOLDS_OBJECT(json_object_get_member(answer, "decision")))
		goto out;
	decision = json_object_get_object_member(answer, "decision");
	if (!json_object_has_member(decision, "type") ||
	    json_node_get_value_type(json_object_get_member(decision, "type")) != G_TYPE_STRING)
		goto out;
	type = json_object_get_string_member(decision, "type");
	if (json_object_has_member(decision, "reason") &&
	    json_node_get_value_type(json_object_get_member(decision, "reason")) == G_TYPE_STRING)
		reason = json_object_get_string_member(decision, "reason");
	if (g_str_equal(type, "allow")) {
		/* as the reference reports it: the reason overridden, not a reason of its own */
		esd_np_verdict_set(verdict, "allow", "decider", "not_allowed");
		verdict->policy_override = TRUE;
		allowed = TRUE;
	} else if ((g_str_equal(type, "deny") || g_str_equal(type, "ask")) && reason != NULL &&
		   reason[0] != '\0' && strlen(reason) <= 1024)
		esd_np_verdict_set(verdict,
				   g_str_equal(type, "deny") ? "deny" : "ask",
				   "decider",
				   reason);
out:
	json_node_unref(ask.answer);
	return allowed;
}

/*
 * The policy for @target. Returns the addresses to dial, or %NULL with
 * @verdict saying why not (already notified).
 */
static GList *
esd_np_proxy_decide(EsdNpProxy *self, const EsdNpTarget *target, EsdNpVerdict *verdict)
{
	const EsdNpConfig *config = self->config;
	EsdNpRule rule = esd_np_config_match(config, target->host);
	gboolean local_literal = esd_np_policy_host_is_local_literal(target->host);
	gboolean check_local = !config->allow_local_binding;
	g_autoptr(GInetAddress) literal = g_inet_address_new_from_string(target->host);
	g_autoptr(GError) error = NULL;
	GList *addresses = NULL;

	esd_np_verdict_set(verdict, "allow", "baseline_policy", "allow");
	/* SOCKS would bypass the method check: limited mode refuses it before the domain */
	if (config->limited && target->method == NULL) {
		esd_np_verdict_set(verdict, "deny", "mode_guard", "method_not_allowed");
		goto blocked;
	}
	if (rule == ESD_NP_RULE_DENY) {
		esd_np_verdict_set(verdict, "deny", "baseline_policy", "denied");
		goto blocked;
	}
	if (rule == ESD_NP_RULE_NONE && check_local && local_literal) {
		esd_np_verdict_set(verdict, "deny", "baseline_policy", "not_allowed_local");
		goto blocked;
	}
	/* an unlisted host, or an allowed review domain, is the decider's to allow */
	if (rule == ESD_NP_RULE_NONE || rule == ESD_NP_RULE_REVIEW) {
		if (config->decision_timeout_ms == 0) {
			esd_np_verdict_set(verdict, "deny", "baseline_policy", "not_allowed");
			goto blocked;
		}
		if (!esd_np_proxy_ask(self, target, verdict))
			goto blocked;
	}
	/* only a local literal the list names without a wildcard passes as local */
	if (local_literal && check_local) {
		if (esd_np_config_names(config, target->host)) {
			check_local = FALSE;
		} else {
			esd_np_verdict_set(verdict, "deny", "baseline_policy", "not_allowed_local");
			goto blocked;
		}
	}
	if (literal != NULL) {
		addresses = g_list_prepend(NULL, g_steal_pointer(&literal));
	} else {
		g_autoptr(GResolver) resolver = g_resolver_get_default();
		addresses =
		    g_resolver_lookup_by_name(resolver, target->host, self->cancellable, &error);
		if (addresses == NULL) {
			g_debug("%s: %s", target->host, error->message);
			/* what does not resolve is treated as local, as the reference does */
			esd_np_verdict_set(verdict, "deny", "baseline_policy", "not_allowed_local");
			goto blocked;
		}
	}
	if (check_local) {
		for (GList *l = addresses; l != NULL; l = l->next) {
			if (!esd_np_policy_address_is_public(l->data)) {
				esd_np_verdict_set(verdict,
						   "deny",
						   "baseline_policy",
						   "not_allowed_local");
				g_resolver_free_addresses(addresses);
				goto blocked;
			}
		}
	}
	verdict->pending = esd_np_proxy_note_new(self, target, verdict);
	/* with credentialMasking, as on the reference, a tunnel in limited mode is
	 * intercepted and each of its requests' methods checked (esd-np-mitm.c) */
	if (config->limited && (g_str_equal(target->method, "CONNECT")
				    ? !config->credential_masking
				    : !esd_np_request_method_is_read(target->method))) {
		esd_np_verdict_set(verdict,
				   "deny",
				   "mode_guard",
				   g_str_equal(target->method, "CONNECT") ? "mitm_required"
									  : "method_not_allowed");
		g_resolver_free_addresses(addresses);
		esd_np_proxy_flush(self, verdict);
		goto blocked;
	}
	return addresses;
blocked:
	esd_np_proxy_notify(self, target, verdict);
	return NULL;
}

static void
esd_np_proxy_respond(EsdNpProxy *self,
		     gint fd,
		     const gchar *status,
		     const gchar *type,
		     const gchar *header,
		     const gchar *body)
{
	g_autoptr(GString) text = g_string_new(NULL);

	g_autoptr(GDateTime) now = g_date_time_new_now_utc();
	g_autofree gchar *date = g_date_time_format(now, "%a, %d %b %Y %H:%M:%S GMT");

	g_string_append_printf(text, "HTTP/1.1 %s\r\ncontent-type: %s\r\n", status, type);
	if (header != NULL)
		g_string_append_printf(text, "x-proxy-error: %s\r\n", header);
	g_string_append_printf(text,
			       "content-length: %zu\r\ndate: %s\r\nconnection: close\r\n\r\n%s",
			       strlen(body),
			       date,
			       body);
	(void)esd_np_io_write_all(fd,
				  text->str,
				  text->len,
				  self->cancel_fd,
				  ESD_NP_PROXY_IO_TIMEOUT_MS);
}

static void
esd_np_proxy_bad_request(EsdNpProxy *self, gint fd, const gchar *message)
{
	esd_np_proxy_respond(self, fd, "400 Bad Request", "text/plain", NULL, message);
}

static void
esd_np_proxy_respond_blocked(EsdNpProxy *self,
			     gint fd,
			     const EsdNpTarget *target,
			     const EsdNpVerdict *verdict)
{
	const gchar *header = NULL;
	const gchar *message = esd_np_verdict_message(verdict, &header);
	g_autoptr(JsonNode) node = NULL;
	g_autofree gchar *body = NULL;
	JsonObject *obj;

	/* a failed tunnel says it in plain text */
	if (g_str_equal(target->protocol, "https_connect")) {
		esd_np_proxy_respond(self, fd, "403 Forbidden", "text/plain", header, message);
		return;
	}
	obj = json_object_new();
	json_object_set_string_member(obj, "status", "blocked");
	json_object_set_string_member(obj, "host", target->host);
	json_object_set_string_member(obj, "reason", verdict->reason);
	json_object_set_string_member(obj, "decision", verdict->decision);
	json_object_set_string_member(obj, "source", verdict->source);
	json_object_set_string_member(obj, "protocol", target->protocol);
	json_object_set_int_member(obj, "port", target->port);
	json_object_set_string_member(obj, "message", message);
	node = json_node_init_object(json_node_alloc(), obj);
	json_object_unref(obj);
	body = json_to_string(node, FALSE);
	esd_np_proxy_respond(self, fd, "403 Forbidden", "application/json", header, body);
}

/* a plain socket per address: no proxy resolver, no events, the checked address only; -1 */
static gint
esd_np_proxy_dial(EsdNpProxy *self, GList *addresses, guint16 port)
{
	for (GList *l = addresses; l != NULL; l = l->next) {
		gint fd =
		    esd_np_io_dial(l->data, port, self->cancel_fd, ESD_NP_PROXY_IO_TIMEOUT_MS);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

/* a connection to the upstream proxy itself: the daemon's configuration, no policy */
static gint
esd_np_proxy_dial_upstream(EsdNpProxy *self, const EsdNpUpstream *upstream)
{
	g_autoptr(GResolver) resolver = g_resolver_get_default();
	g_autoptr(GError) error = NULL;
	GList *addresses =
	    g_resolver_lookup_by_name(resolver, upstream->host, self->cancellable, &error);
	gint fd;

	if (addresses == NULL) {
		g_debug("upstream proxy %s: %s", upstream->host, error->message);
		return -1;
	}
	fd = esd_np_proxy_dial(self, addresses, upstream->port);
	g_resolver_free_addresses(addresses);
	return fd;
}

/* a tunnel to @target through the upstream proxy: CONNECT, and its 200 */
static gint
esd_np_proxy_dial_tunnel(EsdNpProxy *self, const EsdNpTarget *target)
{
	gint fd = esd_np_proxy_dial_upstream(self, self->upstream_tunnel);
	g_autoptr(GString) request = g_string_new(NULL);
	g_autoptr(GString) reply = g_string_new(NULL);
	gboolean v6 = strchr(target->host, ':') != NULL;
	g_autofree gchar *authority =
	    g_strdup_printf("%s%s%s:%u", v6 ? "[" : "", target->host, v6 ? "]" : "", target->port);

	if (fd < 0)
		return -1;
	g_string_append_printf(request,
			       "CONNECT %s HTTP/1.1\r\nHost: %s\r\n",
			       authority,
			       authority);
	if (self->upstream_tunnel->authorization != NULL)
		g_string_append_printf(request,
				       "Proxy-Authorization: %s\r\n",
				       self->upstream_tunnel->authorization);
	g_string_append(request, "\r\n");
	if (!esd_np_io_write_all(fd,
				 request->str,
				 request->len,
				 self->cancel_fd,
				 ESD_NP_PROXY_IO_TIMEOUT_MS))
		goto failed;
	/* byte by byte: nothing of the tunnel may be read here */
	while (strstr(reply->str, "\r\n\r\n") == NULL) {
		gchar c;
		if (reply->len >= 16384 ||
		    esd_np_io_read(fd, &c, 1, self->cancel_fd, ESD_NP_PROXY_IO_TIMEOUT_MS) != 1)
			goto failed;
		g_string_append_c(reply, c);
	}
	if (!g_str_has_prefix(reply->str, "HTTP/1.1 200") &&
	    !g_str_has_prefix(reply->str, "HTTP/1.0 200")) {
		g_debug("upstream proxy refused the tunnel to %s", authority);
		goto failed;
	}
	return fd;
failed:
	close(fd);
	return -1;
}

/*
 * The connection a request goes out on: through the upstream proxy, or
 * direct; -1. A local or private destination (one the policy let through
 * as such) is dialled directly, as on the reference: a proxy elsewhere
 * would not reach it.
 */
static gint
esd_np_proxy_dial_target(EsdNpProxy *self,
			 const EsdNpTarget *target,
			 GList *addresses,
			 gboolean *upstream)
{
	gboolean local = FALSE;

	for (GList *l = addresses; l != NULL && !local; l = l->next)
		local = !esd_np_policy_address_is_public(l->data);
	*upstream = FALSE;
	if (local)
		return esd_np_proxy_dial(self, addresses, target->port);
	if (g_str_equal(target->protocol, "http") && self->upstream_http != NULL) {
		*upstream = TRUE;
		return esd_np_proxy_dial_upstream(self, self->upstream_http);
	}
	if (!g_str_equal(target->protocol, "http") && self->upstream_tunnel != NULL) {
		*upstream = TRUE;
		return esd_np_proxy_dial_tunnel(self, target);
	}
	return esd_np_proxy_dial(self, addresses, target->port);
}

static gchar *
esd_np_proxy_peer(GSocketConnection *conn)
{
	g_autoptr(GSocketAddress) address = g_socket_connection_get_remote_address(conn, NULL);
	g_autofree gchar *ip = NULL;

	if (!G_IS_INET_SOCKET_ADDRESS(address))
		return g_strdup("");
	ip = g_inet_address_to_string(
	    g_inet_socket_address_get_address(G_INET_SOCKET_ADDRESS(address)));
	return g_strdup_printf("%s:%u",
			       ip,
			       g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(address)));
}

/* the head of the request, and the bytes the client sent after it */
static EsdNpRequest *
esd_np_proxy_read_head(EsdNpProxy *self, gint fd, GByteArray *buffer)
{
	while (TRUE) {
		guint len = buffer->len;
		gssize n;
		gssize end = esd_np_request_find_end((const gchar *)buffer->data, buffer->len);

		if (end > 0) {
			EsdNpRequest *request =
			    esd_np_request_parse((const gchar *)buffer->data, (gsize)end);
			g_byte_array_remove_range(buffer, 0, (guint)end);
			return request;
		}
		if (buffer->len >= ESD_NP_REQUEST_MAX_HEAD)
			return NULL;
		/* a method starts with a letter: anything else (a SOCKS or TLS greeting) is no
		 * request, and the client waits for an answer, not for a timeout */
		if (buffer->len > 0 && !g_ascii_isupper(buffer->data[0]))
			return NULL;
		/* into the array itself: a thread per tunnel keeps no buffer on its stack */
		g_byte_array_set_size(buffer, MIN(len + 4096, ESD_NP_REQUEST_MAX_HEAD));
		n = esd_np_io_read(fd,
				   buffer->data + len,
				   buffer->len - len,
				   self->cancel_fd,
				   ESD_NP_PROXY_IO_TIMEOUT_MS);
		g_byte_array_set_size(buffer, len + (guint)MAX(n, 0));
		if (n <= 0)
			return NULL;
	}
}

/*
 * `x-unix-socket`: a Unix socket of the host, which the reference proxies on
 * macOS only and refuses on Linux, as here: 400 when the header is not
 * visible ASCII; 403 in limited mode for a method it does not allow; 501
 * otherwise, each with its decision (host `unix-socket`, port 0) but the
 * first. Neither the target nor the policy is looked at.
 */
static void
esd_np_proxy_refuse_unix_socket(EsdNpProxy *self,
				gint fd,
				const EsdNpRequest *request,
				EsdNpTarget *target)
{
	EsdNpVerdict verdict = {.decision = "deny", .scope = "non_domain"};
	gboolean limited = self->config->limited && !esd_np_request_method_is_read(request->method);

	if (request->unix_socket_invalid) {
		esd_np_proxy_respond(self,
				     fd,
				     "400 Bad Request",
				     "text/plain",
				     NULL,
				     "invalid x-unix-socket header");
		return;
	}
	target->protocol = "http";
	target->method = request->method;
	target->host = g_strdup(request->host);
	target->port = 0;
	verdict.source = limited ? "mode_guard" : "proxy_state";
	verdict.reason = g_strdup(limited ? "method_not_allowed" : "unix_socket_unsupported");
	esd_np_proxy_notify(self, target, &verdict);
	if (limited) {
		/* the reference's body here has three members only */
		esd_np_proxy_respond(self,
				     fd,
				     "403 Forbidden",
				     "application/json",
				     "blocked-by-method-policy",
				     "{\"status\":\"blocked\",\"host\":\"unix-socket\","
				     "\"reason\":\"method_not_allowed\"}");
	} else {
		esd_np_proxy_respond(self,
				     fd,
				     "501 Not Implemented",
				     "text/plain",
				     NULL,
				     "unix sockets unsupported");
	}
	g_free(verdict.reason);
}

static void
esd_np_proxy_serve(EsdNpProxy *self, gint fd, gboolean in_namespace)
{
	g_autoptr(GByteArray) rest = g_byte_array_new();
	g_autoptr(EsdNpRequest) request = NULL;
	EsdNpTarget target = {0};
	EsdNpVerdict verdict = {0};
	g_autofree gchar *head = NULL;
	GList *addresses;
	guint16 peer_port = 0;
	gboolean via_upstream = FALSE;
	gint upstream = -1;
	EsdNpBody body = {0};

	target.client = esd_np_io_peer(fd, &peer_port);
	/* the sandbox's namespace holds nothing but the launch's processes */
	if (!in_namespace && !esd_np_proxy_peer_allowed(self, peer_port, self->port)) {
		g_debug("%s: refusing a client outside the process's tree", self->process_id);
		esd_np_proxy_respond(self,
				     fd,
				     "403 Forbidden",
				     "text/plain",
				     "blocked-by-policy",
				     "this proxy serves another process");
		goto out;
	}
	request = esd_np_proxy_read_head(self, fd, rest);
	if (request == NULL) {
		esd_np_proxy_bad_request(self, fd, "bad request");
		goto out;
	}
	if (request->unix_socket) {
		esd_np_proxy_refuse_unix_socket(self, fd, request, &target);
		goto out;
	}
	target.host = esd_np_policy_normalize_host(request->host);
	if (target.host == NULL) {
		esd_np_proxy_bad_request(self, fd, "bad request");
		goto out;
	}
	if (!request->connect && !esd_np_request_host_matches(request)) {
		esd_np_proxy_bad_request(self, fd, "Host header does not match request target");
		goto out;
	}
	/* framing another server could read otherwise is refused (esd-np-http1.c) */
	if (!request->connect && !esd_np_body_init_request(&body, request->headers)) {
		esd_np_proxy_bad_request(self, fd, "bad request");
		goto out;
	}
	target.protocol = request->connect ? "https_connect" : "http";
	target.method = request->method;
	target.port = request->port;
	addresses = esd_np_proxy_decide(self, &target, &verdict);
	if (addresses == NULL) {
		esd_np_proxy_respond_blocked(self, fd, &target, &verdict);
		goto out;
	}
	upstream = esd_np_proxy_dial_target(self, &target, addresses, &via_upstream);
	g_resolver_free_addresses(addresses);
	if (upstream < 0) {
		esd_np_proxy_flush(self, &verdict);
		esd_np_proxy_respond(self,
				     fd,
				     "502 Bad Gateway",
				     "text/plain",
				     NULL,
				     "upstream failure");
		goto out;
	}
	if (request->connect) {
		static const gchar established[] = "HTTP/1.1 200 OK\r\n\r\n";

		esd_np_proxy_flush(self, &verdict);
		if (!esd_np_io_write_all(fd,
					 established,
					 strlen(established),
					 self->cancel_fd,
					 ESD_NP_PROXY_IO_TIMEOUT_MS))
			goto out;
		/* a secret may go there: the tunnel's requests are read to put it in */
		if (self->creds != NULL && self->cancel_fd >= 0 &&
		    (self->config->limited ||
		     esd_np_creds_intercepts(self->creds, target.host, target.port))) {
			EsdNpMitmTarget mitm = {
			    .host = target.host,
			    .authority = request->host,
			    .port = target.port,
			    .limited = self->config->limited,
			    .cancel_fd = self->cancel_fd,
			    .timeout_ms = ESD_NP_PROXY_IO_TIMEOUT_MS,
			    .process_id = self->process_id,
			};
			esd_np_mitm_serve(self->ca, self->creds, &mitm, fd, upstream, rest);
			goto out;
		}
	} else {
		/* plain HTTP to where a secret may go over it: its placeholder is replaced */
		if (self->creds != NULL)
			esd_np_creds_apply(self->creds,
					   FALSE,
					   target.host,
					   target.port,
					   request->path,
					   request->headers);
		head = esd_np_request_forward_head(request, via_upstream);
		if (via_upstream && self->upstream_http->authorization != NULL) {
			/* the upstream's credentials go before the blank line */
			gchar *with = g_strdup_printf("%.*sProxy-Authorization: %s\r\n\r\n",
						      (gint)(strlen(head) - 2),
						      head,
						      self->upstream_http->authorization);
			memset(head, 0, strlen(head));
			g_free(head);
			head = with;
		}
		if (!esd_np_io_write_all(upstream,
					 head,
					 strlen(head),
					 self->cancel_fd,
					 ESD_NP_PROXY_IO_TIMEOUT_MS))
			goto out;
	}
	/* the request is on its way: the decision goes before any of the answer */
	if (request->connect) {
		if (rest->len > 0 && !esd_np_io_write_all(upstream,
							  rest->data,
							  rest->len,
							  self->cancel_fd,
							  ESD_NP_PROXY_IO_TIMEOUT_MS))
			goto out;
		esd_np_proxy_flush(self, &verdict);
		/* a tunnel may last: what only the head needed goes first */
		g_clear_pointer(&rest, g_byte_array_unref);
		/* without a way to be stopped, a tunnel is not started */
		if (self->cancel_fd >= 0)
			esd_np_relay_run(fd, upstream, self->cancel_fd);
	} else if (self->cancel_fd >= 0) {
		/* this request and its response only: a next one comes on a new connection */
		EsdNpForward forward = {
		    .client = fd,
		    .upstream = upstream,
		    .method = request->method,
		    .upgrade = esd_np_request_is_upgrade(request),
		    .body = body,
		    .early = rest->data,
		    .early_len = rest->len,
		    .cancel_fd = self->cancel_fd,
		    .timeout_ms = ESD_NP_PROXY_IO_TIMEOUT_MS,
		};

		esd_np_proxy_flush(self, &verdict);
		/* the head may hold a secret */
		if (head != NULL) {
			memset(head, 0, strlen(head));
			g_clear_pointer(&head, g_free);
		}
		esd_np_forward_run(&forward);
	}
out:
	if (upstream >= 0)
		close(upstream);
	/* they may hold a secret */
	if (head != NULL)
		memset(head, 0, strlen(head));
	if (self->creds != NULL && request != NULL) {
		for (guint i = 0; i < request->headers->len; i++) {
			gchar *text = request->headers->pdata[i];
			memset(text, 0, strlen(text));
		}
	}
	esd_np_proxy_flush(self, &verdict);
	esd_np_target_clear(&target);
	g_free(verdict.reason);
}

/* SOCKS5 replies: succeeded, not allowed by ruleset, connection refused, command not supported */
#define ESD_NP_SOCKS_OK		 0x00
#define ESD_NP_SOCKS_NOT_ALLOWED 0x02
#define ESD_NP_SOCKS_REFUSED	 0x05
#define ESD_NP_SOCKS_BAD_COMMAND 0x07
#define ESD_NP_SOCKS_FAILURE	 0x01
/* commands */
#define ESD_NP_SOCKS_CONNECT	   0x01
#define ESD_NP_SOCKS_UDP_ASSOCIATE 0x03

static void
esd_np_proxy_socks_reply(GOutputStream *out, guint8 code, GCancellable *cancellable)
{
	/* the bound address is of no use through a proxy: 0.0.0.0:0 */
	const guint8 reply[10] = {5, code, 0, 1, 0, 0, 0, 0, 0, 0};
	g_output_stream_write_all(out, reply, sizeof(reply), NULL, cancellable, NULL);
}

static gboolean
esd_np_proxy_read_exact(EsdNpProxy *self, GInputStream *in, guint8 *buffer, gsize len)
{
	gsize n = 0;
	return g_input_stream_read_all(in, buffer, len, &n, self->cancellable, NULL) && n == len;
}

/*
 * The SOCKS5 (RFC 1928) request, without authentication: CONNECT, or UDP
 * ASSOCIATE when @udp; NULL host on failure
 */
static gchar *
esd_np_proxy_socks_handshake(EsdNpProxy *self,
			     GInputStream *in,
			     GOutputStream *out,
			     gboolean udp,
			     guint8 *command,
			     guint16 *port)
{
	guint8 buffer[262];
	gboolean no_auth = FALSE;
	gchar *host = NULL;
	guint8 atyp;
	gsize size;

	if (!esd_np_proxy_read_exact(self, in, buffer, 2) || buffer[0] != 5 || buffer[1] == 0 ||
	    !esd_np_proxy_read_exact(self, in, buffer + 2, buffer[1]))
		return NULL;
	for (guint i = 0; i < buffer[1]; i++)
		no_auth = no_auth || buffer[2 + i] == 0;
	if (!no_auth) {
		const guint8 refuse[2] = {5, 0xff};
		g_output_stream_write_all(out, refuse, 2, NULL, self->cancellable, NULL);
		return NULL;
	}
	if (!g_output_stream_write_all(out, "\x05\x00", 2, NULL, self->cancellable, NULL) ||
	    !esd_np_proxy_read_exact(self, in, buffer, 4) || buffer[0] != 5)
		return NULL;
	if (buffer[1] != ESD_NP_SOCKS_CONNECT &&
	    !(udp && buffer[1] == ESD_NP_SOCKS_UDP_ASSOCIATE)) {
		esd_np_proxy_socks_reply(out, ESD_NP_SOCKS_BAD_COMMAND, self->cancellable);
		return NULL;
	}
	*command = buffer[1];
	atyp = buffer[3];
	switch (atyp) {
	case 1:
		size = 4;
		break;
	case 4:
		size = 16;
		break;
	case 3:
		if (!esd_np_proxy_read_exact(self, in, buffer, 1))
			return NULL;
		size = buffer[0];
		break;
	default:
		esd_np_proxy_socks_reply(out, 0x08, self->cancellable); /* address type */
		return NULL;
	}
	if (!esd_np_proxy_read_exact(self, in, buffer, size))
		return NULL;
	/* the same address as in a datagram's header: an empty name or a NUL fails */
	host = esd_np_request_socks_host(atyp, buffer, size);
	if (host == NULL) {
		esd_np_proxy_socks_reply(out, ESD_NP_SOCKS_FAILURE, self->cancellable);
		return NULL;
	}
	if (!esd_np_proxy_read_exact(self, in, buffer, 2)) {
		g_free(host);
		return NULL;
	}
	*port = (guint16)((buffer[0] << 8) | buffer[1]);
	return host;
}

/* SOCKS5 UDP ASSOCIATE -------------------------------------------------- */

#define ESD_NP_PROXY_MAX_UDP	      16    /* associations at once per process */
#define ESD_NP_PROXY_UDP_MAX_DATAGRAM 16384 /* bytes, the SOCKS header included */
#define ESD_NP_PROXY_UDP_MAX_PEERS    64    /* destinations a reply is taken from */
#define ESD_NP_PROXY_UDP_HEADER_MAX   22    /* RSV FRAG ATYP, an IPv6 address, port */

typedef struct {
	GSocket *relay;		    /* the client's side, on the control connection's address */
	gboolean pooled;	    /* the relay is the sandbox's, and goes back to the pool */
	GSocket *out[2];	    /* IPv4 and IPv6 to destinations, made when first needed */
	GInetAddress *client_host;  /* the control connection's peer */
	guint16 client_port;	    /* the port the request named, or 0 */
	GInetSocketAddress *client; /* the sender relayed for, once known */
	GPtrArray *peers;	    /* GInetSocketAddress: destinations the client sent to */
	gchar *client_text;	    /* the control connection's peer, for notifications */
	guint8 *buffer;
} EsdNpUdp;

static void
esd_np_udp_clear(EsdNpUdp *udp)
{
	g_clear_object(&udp->relay);
	g_clear_object(&udp->out[0]);
	g_clear_object(&udp->out[1]);
	g_clear_object(&udp->client_host);
	g_clear_object(&udp->client);
	g_clear_pointer(&udp->peers, g_ptr_array_unref);
	g_clear_pointer(&udp->client_text, g_free);
	g_clear_pointer(&udp->buffer, g_free);
}

static gboolean
esd_np_udp_same(GInetSocketAddress *a, GInetSocketAddress *b)
{
	return g_inet_socket_address_get_port(a) == g_inet_socket_address_get_port(b) &&
	       g_inet_address_equal(g_inet_socket_address_get_address(a),
				    g_inet_socket_address_get_address(b));
}

/* the socket to @family's destinations, made on first use */
static GSocket *
esd_np_udp_out(EsdNpUdp *udp, GSocketFamily family)
{
	guint i = family == G_SOCKET_FAMILY_IPV6 ? 1 : 0;
	g_autoptr(GError) error = NULL;

	if (udp->out[i] == NULL) {
		udp->out[i] =
		    g_socket_new(family, G_SOCKET_TYPE_DATAGRAM, G_SOCKET_PROTOCOL_UDP, &error);
		if (udp->out[i] == NULL) {
			g_debug("a UDP socket: %s", error->message);
			return NULL;
		}
		g_socket_set_blocking(udp->out[i], FALSE);
	}
	return udp->out[i];
}

/* whether @sender is the client the association is for; the first one is checked and kept */
static gboolean
esd_np_proxy_udp_is_client(EsdNpProxy *self, EsdNpUdp *udp, GSocketAddress *sender)
{
	GInetSocketAddress *inet;
	guint16 port;

	if (!G_IS_INET_SOCKET_ADDRESS(sender))
		return FALSE;
	inet = G_INET_SOCKET_ADDRESS(sender);
	if (udp->client != NULL)
		return esd_np_udp_same(udp->client, inet);
	port = g_inet_socket_address_get_port(inet);
	/* the control connection's host, at the port it named (any port when it named none) */
	if (!g_inet_address_equal(g_inet_socket_address_get_address(inet), udp->client_host) ||
	    (udp->client_port != 0 && port != udp->client_port))
		return FALSE;
	/*
	 * every local process shares the loopback address: the sender must be of
	 * the tree (in the sandbox's namespace there is nothing else)
	 */
	if (!udp->pooled && !esd_np_peer_udp_in_tree(port, esd_np_proxy_root_pid(self))) {
		g_debug("%s: a datagram from outside the process's tree", self->process_id);
		return FALSE;
	}
	udp->client = g_object_ref(inet);
	return TRUE;
}

/* a datagram from the client: checked against the policy, then sent, or dropped */
static void
esd_np_proxy_udp_from_client(EsdNpProxy *self, EsdNpUdp *udp)
{
	g_autoptr(GSocketAddress) sender = NULL;
	g_autoptr(GSocketAddress) destination = NULL;
	g_autofree gchar *host = NULL;
	EsdNpTarget target = {.protocol = "socks5_udp"};
	EsdNpVerdict verdict = {0};
	GList *addresses;
	gsize offset = 0;
	gssize n;

	n = g_socket_receive_from(udp->relay,
				  &sender,
				  (gchar *)udp->buffer,
				  ESD_NP_PROXY_UDP_MAX_DATAGRAM + 1,
				  NULL,
				  NULL);
	/* a datagram over the cap arrives cut to cap + 1 bytes, and is dropped */
	if (n <= 0 || n > ESD_NP_PROXY_UDP_MAX_DATAGRAM ||
	    !esd_np_proxy_udp_is_client(self, udp, sender))
		return;
	host = esd_np_request_parse_udp(udp->buffer, (gsize)n, &target.port, &offset);
	if (host == NULL || target.port == 0)
		return;
	target.host = esd_np_policy_normalize_host(host);
	if (target.host == NULL)
		return;
	target.client = g_strdup(udp->client_text);
	addresses = esd_np_proxy_decide(self, &target, &verdict);
	esd_np_proxy_flush(self, &verdict);
	for (GList *l = addresses; l != NULL && destination == NULL; l = l->next) {
		GSocket *out = esd_np_udp_out(udp, g_inet_address_get_family(l->data));
		if (out == NULL)
			continue;
		destination = g_inet_socket_address_new(l->data, target.port);
		if (g_socket_send_to(out,
				     destination,
				     (const gchar *)udp->buffer + offset,
				     (gsize)n - offset,
				     NULL,
				     NULL) < 0)
			g_clear_object(&destination);
	}
	g_resolver_free_addresses(addresses);
	if (destination != NULL) {
		gboolean known = FALSE;
		for (guint i = 0; i < udp->peers->len && !known; i++)
			known = esd_np_udp_same(udp->peers->pdata[i],
						G_INET_SOCKET_ADDRESS(destination));
		if (!known) {
			if (udp->peers->len >= ESD_NP_PROXY_UDP_MAX_PEERS)
				g_ptr_array_remove_index(udp->peers, 0);
			g_ptr_array_add(udp->peers, g_steal_pointer(&destination));
		}
	}
	esd_np_target_clear(&target);
	g_free(verdict.reason);
}

/* a datagram to the proxy's side: returned to the client if it comes from a destination */
static void
esd_np_proxy_udp_from_peer(EsdNpUdp *udp, GSocket *out)
{
	g_autoptr(GSocketAddress) from = NULL;
	GInetAddress *address;
	guint8 *data = udp->buffer + ESD_NP_PROXY_UDP_HEADER_MAX;
	gboolean known = FALSE;
	gsize size;
	gsize head;
	gssize n;

	n = g_socket_receive_from(out,
				  &from,
				  (gchar *)data,
				  ESD_NP_PROXY_UDP_MAX_DATAGRAM - ESD_NP_PROXY_UDP_HEADER_MAX + 1,
				  NULL,
				  NULL);
	if (n < 0 || n > ESD_NP_PROXY_UDP_MAX_DATAGRAM - ESD_NP_PROXY_UDP_HEADER_MAX ||
	    udp->client == NULL || !G_IS_INET_SOCKET_ADDRESS(from))
		return;
	for (guint i = 0; i < udp->peers->len && !known; i++)
		known = esd_np_udp_same(udp->peers->pdata[i], G_INET_SOCKET_ADDRESS(from));
	if (!known)
		return;
	address = g_inet_socket_address_get_address(G_INET_SOCKET_ADDRESS(from));
	size = g_inet_address_get_native_size(address);
	head = 4 + size + 2;
	data -= head;
	data[0] = data[1] = data[2] = 0;
	data[3] = size == 4 ? 1 : 4;
	memcpy(data + 4, g_inet_address_to_bytes(address), size);
	data[4 + size] = (guint8)(g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(from)) >> 8);
	data[5 + size] = (guint8)g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(from));
	g_socket_send_to(udp->relay,
			 G_SOCKET_ADDRESS(udp->client),
			 (const gchar *)data,
			 head + (gsize)n,
			 NULL,
			 NULL);
}

/* the reply to UDP ASSOCIATE: the relay's address */
static void
esd_np_proxy_udp_reply(GOutputStream *out, GInetSocketAddress *relay, GCancellable *cancellable)
{
	GInetAddress *address = g_inet_socket_address_get_address(relay);
	gsize size = g_inet_address_get_native_size(address);
	guint16 port = g_inet_socket_address_get_port(relay);
	guint8 reply[22] = {5, ESD_NP_SOCKS_OK, 0, size == 4 ? 1 : 4};

	memcpy(reply + 4, g_inet_address_to_bytes(address), size);
	reply[4 + size] = (guint8)(port >> 8);
	reply[5 + size] = (guint8)port;
	g_output_stream_write_all(out, reply, 6 + size, NULL, cancellable, NULL);
}

#define ESD_NP_PROXY_UDP_DRAIN 64 /* datagrams a relay is emptied of before it is reused */

/*
 * empties a relay of the namespace of what was sent to it between two
 * associations; FALSE if it is still being sent to after
 * ESD_NP_PROXY_UDP_DRAIN datagrams: it is closed then, so that a sender
 * cannot keep the thread here
 */
static gboolean
esd_np_proxy_udp_drain(GSocket *relay)
{
	gchar scrap[1];

	for (guint i = 0; i <= ESD_NP_PROXY_UDP_DRAIN; i++) {
		if (g_socket_receive(relay, scrap, sizeof(scrap), NULL, NULL) < 0)
			return TRUE;
	}
	return FALSE;
}

/* an idle relay of the sandbox's namespace, emptied, or NULL when all are in use */
static GSocket *
esd_np_proxy_udp_take(EsdNpProxy *self)
{
	while (TRUE) {
		GSocket *relay = NULL;

		g_mutex_lock(&self->udp_lock);
		if (self->udp_pool != NULL && self->udp_pool->len > 0)
			relay = g_ptr_array_steal_index(self->udp_pool, self->udp_pool->len - 1);
		g_mutex_unlock(&self->udp_lock);
		if (relay == NULL || esd_np_proxy_udp_drain(relay))
			return relay;
		g_object_unref(relay);
	}
}

/* a relay of the namespace back to the pool, emptied */
static void
esd_np_proxy_udp_give_back(EsdNpProxy *self, GSocket *relay)
{
	gboolean drained = esd_np_proxy_udp_drain(relay);

	g_mutex_lock(&self->udp_lock);
	/* once stopped, a relay is closed: it holds the sandbox's namespace */
	if (g_cancellable_is_cancelled(self->cancellable) || !drained) {
		g_object_unref(relay);
	} else {
		if (self->udp_pool == NULL)
			self->udp_pool = g_ptr_array_new_with_free_func(g_object_unref);
		g_ptr_array_add(self->udp_pool, relay);
	}
	g_mutex_unlock(&self->udp_lock);
}

/*
 * UDP ASSOCIATE: a relay socket on the address the client dialled, serving
 * the client at @host:@port (the control connection's host; any port of it
 * when @port is 0, then the first sender of the process's tree), until the
 * control connection closes or the proxy stops. Each datagram is a policy
 * decision of its own (protocol socks5_udp); a blocked one is dropped.
 * A client in the sandbox's namespace (@in_namespace) gets one of the
 * relays the sandbox made on its loopback: the host's is out of its reach.
 */
static void
esd_np_proxy_serve_udp(EsdNpProxy *self,
		       GSocketConnection *conn,
		       const gchar *host,
		       guint16 port,
		       gboolean in_namespace)
{
	GOutputStream *out = g_io_stream_get_output_stream(G_IO_STREAM(conn));
	gint control = g_socket_get_fd(g_socket_connection_get_socket(conn));
	g_autoptr(GSocketAddress) peer = g_socket_connection_get_remote_address(conn, NULL);
	g_autoptr(GSocketAddress) local = g_socket_connection_get_local_address(conn, NULL);
	g_autoptr(GInetAddress) named = g_inet_address_new_from_string(host);
	g_autoptr(GSocketAddress) bind_address = NULL;
	g_autoptr(GSocketAddress) bound = NULL;
	g_autoptr(GError) error = NULL;
	EsdNpUdp udp = {0};
	GPollFD cancel = {.fd = -1};

	if (!G_IS_INET_SOCKET_ADDRESS(peer) || !G_IS_INET_SOCKET_ADDRESS(local))
		return;
	udp.client_host =
	    g_object_ref(g_inet_socket_address_get_address(G_INET_SOCKET_ADDRESS(peer)));
	/* the client is the control connection's host: a request naming another is refused */
	if (named == NULL ||
	    (!g_inet_address_get_is_any(named) && !g_inet_address_equal(named, udp.client_host))) {
		esd_np_proxy_socks_reply(out, ESD_NP_SOCKS_NOT_ALLOWED, self->cancellable);
		goto out;
	}
	if (g_atomic_int_add(&self->udp_associations, 1) >= ESD_NP_PROXY_MAX_UDP) {
		g_atomic_int_add(&self->udp_associations, -1);
		g_debug("%s: too many UDP associations", self->process_id);
		esd_np_proxy_socks_reply(out, ESD_NP_SOCKS_FAILURE, self->cancellable);
		goto out;
	}
	udp.client_port = port;
	udp.client_text = esd_np_proxy_peer(conn);
	udp.peers = g_ptr_array_new_with_free_func(g_object_unref);
	udp.buffer = g_malloc(ESD_NP_PROXY_UDP_MAX_DATAGRAM + 1);
	if (in_namespace) {
		udp.relay = esd_np_proxy_udp_take(self);
		udp.pooled = udp.relay != NULL;
		if (udp.relay == NULL)
			g_set_error_literal(&error,
					    G_IO_ERROR,
					    G_IO_ERROR_TOO_MANY_OPEN_FILES,
					    "every relay of the sandbox is in use");
	} else {
		bind_address = g_inet_socket_address_new(
		    g_inet_socket_address_get_address(G_INET_SOCKET_ADDRESS(local)),
		    0);
		udp.relay = g_socket_new(g_socket_address_get_family(local),
					 G_SOCKET_TYPE_DATAGRAM,
					 G_SOCKET_PROTOCOL_UDP,
					 &error);
		if (udp.relay != NULL && !g_socket_bind(udp.relay, bind_address, FALSE, &error))
			g_clear_object(&udp.relay);
	}
	if (udp.relay == NULL || (bound = g_socket_get_local_address(udp.relay, &error)) == NULL ||
	    !g_cancellable_make_pollfd(self->cancellable, &cancel)) {
		g_debug("%s: a UDP relay: %s",
			self->process_id,
			error != NULL ? error->message : "no cancellable descriptor");
		esd_np_proxy_socks_reply(out, ESD_NP_SOCKS_FAILURE, self->cancellable);
		goto done;
	}
	g_socket_set_blocking(udp.relay, FALSE);
	esd_np_proxy_udp_reply(out, G_INET_SOCKET_ADDRESS(bound), self->cancellable);
	while (!g_cancellable_is_cancelled(self->cancellable)) {
		GPollFD fds[5] = {
		    {.fd = control, .events = G_IO_IN},
		    {.fd = cancel.fd, .events = G_IO_IN},
		    {.fd = g_socket_get_fd(udp.relay), .events = G_IO_IN},
		};
		guint nfds = 3;
		gint slot[2] = {-1, -1};

		for (guint i = 0; i < 2; i++) {
			if (udp.out[i] != NULL) {
				slot[i] = (gint)nfds;
				fds[nfds++] =
				    (GPollFD){.fd = g_socket_get_fd(udp.out[i]), .events = G_IO_IN};
			}
		}
		if (g_poll(fds, nfds, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (fds[0].revents != 0) {
			gchar scrap[512];
			gssize r = recv(control, scrap, sizeof(scrap), MSG_DONTWAIT);
			/* it ends with its control connection, whose bytes are ignored */
			if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
				break;
		}
		if (fds[1].revents != 0)
			break;
		if (fds[2].revents != 0)
			esd_np_proxy_udp_from_client(self, &udp);
		for (guint i = 0; i < 2; i++) {
			if (slot[i] >= 0 && fds[slot[i]].revents != 0)
				esd_np_proxy_udp_from_peer(&udp, udp.out[i]);
		}
	}
done:
	if (cancel.fd >= 0)
		g_cancellable_release_fd(self->cancellable);
	g_atomic_int_add(&self->udp_associations, -1);
	if (udp.pooled)
		esd_np_proxy_udp_give_back(self, g_steal_pointer(&udp.relay));
out:
	esd_np_udp_clear(&udp);
}

/* whether the sandbox made UDP relays on its loopback (some may be in use) */
static gboolean
esd_np_proxy_has_udp_pool(EsdNpProxy *self)
{
	gboolean has;

	g_mutex_lock(&self->udp_lock);
	has = self->udp_pool != NULL;
	g_mutex_unlock(&self->udp_lock);
	return has;
}

static void
esd_np_proxy_serve_socks(EsdNpProxy *self, gint fd, gboolean in_namespace)
{
	g_autoptr(GSocket) socket = NULL;
	g_autoptr(GSocketConnection) conn = NULL;
	GInputStream *in;
	GOutputStream *out;
	g_autofree gchar *host = NULL;
	g_autofree gchar *client = NULL;
	EsdNpTarget target = {.protocol = "socks5_tcp"};
	EsdNpVerdict verdict = {0};
	GList *addresses;
	guint16 peer_port = 0;
	gboolean via_upstream = FALSE;
	gint upstream = -1;
	gint own;
	guint8 command = 0;

	client = esd_np_io_peer(fd, &peer_port);
	/* a client outside the tree is dropped before the greeting */
	if (!in_namespace && !esd_np_proxy_peer_allowed(self, peer_port, self->socks_port)) {
		g_debug("%s: refusing a SOCKS client outside the process's tree", self->process_id);
		return;
	}
	/* the handshake and UDP ASSOCIATE read through streams; the listener closes @fd */
	own = dup(fd);
	if (own < 0 || (socket = g_socket_new_from_fd(own, NULL)) == NULL) {
		if (own >= 0)
			close(own);
		return;
	}
	g_socket_set_timeout(socket, ESD_NP_PROXY_IO_TIMEOUT);
	conn = g_socket_connection_factory_create_connection(socket);
	in = g_io_stream_get_input_stream(G_IO_STREAM(conn));
	out = g_io_stream_get_output_stream(G_IO_STREAM(conn));
	/* the sandbox's namespace cannot reach a relay on the host's loopback: it has its own */
	host = esd_np_proxy_socks_handshake(self,
					    in,
					    out,
					    self->config->socks5_udp &&
						(!in_namespace || esd_np_proxy_has_udp_pool(self)),
					    &command,
					    &target.port);
	if (host == NULL)
		return;
	if (command == ESD_NP_SOCKS_UDP_ASSOCIATE) {
		esd_np_proxy_serve_udp(self, conn, host, target.port, in_namespace);
		return;
	}
	target.host = esd_np_policy_normalize_host(host);
	if (target.host == NULL || target.port == 0) {
		esd_np_proxy_socks_reply(out, ESD_NP_SOCKS_NOT_ALLOWED, self->cancellable);
		goto out;
	}
	target.client = g_steal_pointer(&client);
	addresses = esd_np_proxy_decide(self, &target, &verdict);
	if (addresses == NULL) {
		esd_np_proxy_socks_reply(out, ESD_NP_SOCKS_NOT_ALLOWED, self->cancellable);
		goto out;
	}
	upstream = esd_np_proxy_dial_target(self, &target, addresses, &via_upstream);
	g_resolver_free_addresses(addresses);
	esd_np_proxy_flush(self, &verdict);
	if (upstream < 0) {
		esd_np_proxy_socks_reply(out, ESD_NP_SOCKS_REFUSED, self->cancellable);
		goto out;
	}
	esd_np_proxy_socks_reply(out, ESD_NP_SOCKS_OK, self->cancellable);
	/* as a CONNECT tunnel: where a secret may go, its requests are read to put it in */
	if (self->creds != NULL && self->cancel_fd >= 0 &&
	    esd_np_creds_intercepts(self->creds, target.host, target.port)) {
		g_autoptr(GByteArray) early = g_byte_array_new();
		/* as a CONNECT names it: an IPv6 address in brackets, as `Host` has it */
		g_autofree gchar *authority =
		    strchr(host, ':') != NULL ? g_strdup_printf("[%s]", host) : g_strdup(host);
		EsdNpMitmTarget mitm = {
		    .host = target.host,
		    .authority = authority,
		    .port = target.port,
		    .cancel_fd = self->cancel_fd,
		    .timeout_ms = ESD_NP_PROXY_IO_TIMEOUT_MS,
		    .process_id = self->process_id,
		};
		esd_np_mitm_serve(self->ca, self->creds, &mitm, fd, upstream, early);
		goto out;
	}
	/* the handshake's streams are done with: a tunnel may last */
	g_clear_object(&conn);
	g_clear_object(&socket);
	if (self->cancel_fd >= 0)
		esd_np_relay_run(fd, upstream, self->cancel_fd);
out:
	if (upstream >= 0)
		close(upstream);
	esd_np_target_clear(&target);
	g_free(verdict.reason);
}

/* a connection of one of the listeners, in the thread that accepted it */
static void
esd_np_proxy_serve_cb(gint fd, EsdNpListenKind kind, gpointer user_data)
{
	EsdNpProxy *self = ESD_NP_PROXY(user_data);

	if (g_cancellable_is_cancelled(self->cancellable))
		return;
	switch (kind) {
	case ESD_NP_LISTEN_SOCKS:
	case ESD_NP_LISTEN_NAMESPACE_SOCKS:
		esd_np_proxy_serve_socks(self, fd, kind == ESD_NP_LISTEN_NAMESPACE_SOCKS);
		break;
	case ESD_NP_LISTEN_HTTP:
	case ESD_NP_LISTEN_NAMESPACE_HTTP:
	default:
		esd_np_proxy_serve(self, fd, kind == ESD_NP_LISTEN_NAMESPACE_HTTP);
		break;
	}
}

/* a listening socket on 127.0.0.1 and a free port */
static gint
esd_np_proxy_bind_loopback(guint16 *port, GError **error)
{
	struct sockaddr_in address = {.sin_family = AF_INET,
				      .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(address);
	gint fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);

	if (fd < 0 || bind(fd, (struct sockaddr *)&address, sizeof(address)) != 0 ||
	    listen(fd, 128) != 0 || getsockname(fd, (struct sockaddr *)&address, &len) != 0) {
		gint saved = errno;
		if (fd >= 0)
			close(fd);
		esd_np_io_set_error(error, saved, "cannot listen on 127.0.0.1");
		return -1;
	}
	*port = ntohs(address.sin_port);
	return fd;
}

/* ---------------------------------------------------------------------- */

/**
 * esd_np_proxy_new:
 * @config: (transfer full): the launch's configuration
 * @launch: the launch the proxy serves: its session, process id and, once
 *   spawned, the process tree allowed to connect
 * @notes: the queue its decisions go to the client through
 * @error: why no listener could be opened
 *
 * Opens the listener on a free loopback port and starts serving. @launch
 * must outlive the proxy's serving: esd_np_proxy_stop() forgets it.
 *
 * Returns: (transfer full) (nullable): the proxy
 */
EsdNpProxy *
esd_np_proxy_new(EsdNpConfig *config,
		 ErpcLaunch *launch,
		 EsdNpNotes *notes,
		 EsdNpCa *ca,
		 EsdNpCreds *creds,
		 GError **error)
{
	g_autoptr(EsdNpProxy) self = g_object_new(ESD_TYPE_NP_PROXY, NULL);
	gint http_fd;
	gint socks_fd = -1;

	self->config = config;
	self->creds = creds;
	self->ca = ca != NULL ? esd_np_ca_ref(ca) : NULL;
	self->session = g_object_ref(erpc_launch_get_session(launch));
	self->launch = launch;
	self->process_id = g_strdup(erpc_launch_get_process_id(launch));
	self->main_context = g_main_context_ref_thread_default();
	self->notes = esd_np_notes_ref(notes);
	if (config->allow_upstream_proxy) {
		/* the reference's order (checked live): uppercase first, a tunnel falls back to
		 * the HTTP proxy before ALL_PROXY */
		static const gchar *const http[] = {"HTTP_PROXY",
						    "http_proxy",
						    "ALL_PROXY",
						    "all_proxy",
						    NULL};
		static const gchar *const tunnel[] = {"HTTPS_PROXY",
						      "https_proxy",
						      "HTTP_PROXY",
						      "http_proxy",
						      "ALL_PROXY",
						      "all_proxy",
						      NULL};
		self->upstream_http = esd_np_upstream_from_env(http);
		self->upstream_tunnel = esd_np_upstream_from_env(tunnel);
	}
	http_fd = esd_np_proxy_bind_loopback(&self->port, error);
	if (http_fd < 0)
		return NULL;
	if (config->socks5) {
		socks_fd = esd_np_proxy_bind_loopback(&self->socks_port, error);
		if (socks_fd < 0) {
			close(http_fd);
			return NULL;
		}
	}
	/* a tunnel is a thread; beyond this many, connections wait */
	self->listen =
	    esd_np_listen_new(256, esd_np_proxy_serve_cb, self, g_object_ref, g_object_unref);
	esd_np_listen_add(self->listen, http_fd, ESD_NP_LISTEN_HTTP);
	if (socks_fd >= 0)
		esd_np_listen_add(self->listen, socks_fd, ESD_NP_LISTEN_SOCKS);
	return g_steal_pointer(&self);
}

/* a UDP relay the sandbox made, into the pool if it is one: IPv4 datagrams on 127.0.0.1 */
static void
esd_np_proxy_adopt_relay(EsdNpProxy *self, gint fd)
{
	g_autoptr(GSocket) relay = g_socket_new_from_fd(fd, NULL);
	g_autoptr(GSocketAddress) local = NULL;

	if (relay == NULL) {
		close(fd);
		return;
	}
	local = g_socket_get_local_address(relay, NULL);
	if (g_socket_get_socket_type(relay) != G_SOCKET_TYPE_DATAGRAM ||
	    !G_IS_INET_SOCKET_ADDRESS(local) ||
	    !g_inet_address_get_is_loopback(
		g_inet_socket_address_get_address(G_INET_SOCKET_ADDRESS(local)))) {
		g_debug("%s: not a UDP relay of the loopback, ignored", self->process_id);
		return;
	}
	g_socket_set_blocking(relay, FALSE);
	esd_np_proxy_udp_give_back(self, g_steal_pointer(&relay));
}

/* takes over the listeners the sandbox made, once; a message without them is ignored */
static gboolean
esd_np_proxy_channel_cb(gint fd, GIOCondition condition, gpointer user_data)
{
	EsdNpProxy *self = ESD_NP_PROXY(user_data);
	gint listeners[ESD_NP_PROXY_MAX_LISTENERS + ESD_NP_PROXY_MAX_UDP];
	gchar control[CMSG_SPACE(sizeof(listeners))];
	gchar byte;
	struct iovec iov = {&byte, 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control,
			     .msg_controllen = sizeof(control)};
	guint n = 0;
	gssize r;

	memset(control, 0, sizeof(control));
	do
		r = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	while (r < 0 && errno == EINTR);
	if (r < 0 && errno == EAGAIN)
		return G_SOURCE_CONTINUE;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); r > 0 && c != NULL;
	     c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = MIN((c->cmsg_len - CMSG_LEN(0)) / sizeof(gint), G_N_ELEMENTS(listeners));
		memcpy(listeners, CMSG_DATA(c), n * sizeof(gint));
		break;
	}
	/* the UDP relays, after the listeners; before them, so that a SOCKS5 client finds them */
	for (guint i = self->socks_port != 0 ? 2 : 1; i < n; i++) {
		if (self->config->socks5_udp && !g_cancellable_is_cancelled(self->cancellable))
			esd_np_proxy_adopt_relay(self, listeners[i]);
		else
			close(listeners[i]);
	}
	for (guint i = 0; i < n; i++) {
		/* the first is HTTP, the second SOCKS5, as the ports were asked */
		if (i >= 2 || (i == 1 && self->socks_port == 0))
			continue;
		if (self->listen == NULL || g_cancellable_is_cancelled(self->cancellable)) {
			close(listeners[i]);
			continue;
		}
		esd_np_listen_add(self->listen,
				  listeners[i],
				  i == 0 ? ESD_NP_LISTEN_NAMESPACE_HTTP
					 : ESD_NP_LISTEN_NAMESPACE_SOCKS);
	}
	self->channel_source = 0;
	return G_SOURCE_REMOVE;
}

/**
 * esd_np_proxy_attach_channel:
 * @self: the proxy
 * @fd: (transfer full): the plugin's end of the managed network's channel
 *
 * Serves, once they arrive, the listeners the sandbox makes on its own
 * loopback (erpc_launch_set_managed_network()): HTTP first, then SOCKS5.
 * Their clients are the sandbox's processes, so the tree check is not made.
 */
void
esd_np_proxy_attach_channel(EsdNpProxy *self, gint fd)
{
	self->channel_source = g_unix_fd_add_full(G_PRIORITY_DEFAULT,
						  fd,
						  G_IO_IN | G_IO_HUP | G_IO_ERR,
						  esd_np_proxy_channel_cb,
						  g_object_ref(self),
						  g_object_unref);
	self->channel_fd = fd;
}

guint16
esd_np_proxy_get_port(EsdNpProxy *self)
{
	return self->port;
}

/* how many UDP relays the sandbox makes on its loopback: one an association, with enableSocks5Udp
 */
guint
esd_np_proxy_get_udp_relays(EsdNpProxy *self)
{
	G_STATIC_ASSERT(ESD_NP_PROXY_MAX_UDP <= ERPC_LAUNCH_MAX_MANAGED_DATAGRAMS);
	return self->config->socks5_udp ? ESD_NP_PROXY_MAX_UDP : 0;
}

/* the SOCKS5 listener's port, 0 without one */
guint16
esd_np_proxy_get_socks_port(EsdNpProxy *self)
{
	return self->socks_port;
}

/**
 * esd_np_proxy_exiting:
 * @self: the proxy
 *
 * The command has exited and `process/exited` is about to be sent: the
 * queued decisions go out now, and later ones without waiting in the queue.
 * Main context only.
 */
void
esd_np_proxy_exiting(EsdNpProxy *self)
{
	g_atomic_int_set(&self->exited, TRUE);
	esd_np_notes_flush(self->notes);
}

/**
 * esd_np_proxy_stop:
 * @self: the proxy
 *
 * Closes the listener, ends every connection and tunnel, and fails the
 * questions to the client in flight. Main context only; idempotent.
 */
void
esd_np_proxy_stop(EsdNpProxy *self)
{
	g_cancellable_cancel(self->cancellable);
	if (self->channel_source != 0) {
		g_source_remove(self->channel_source);
		self->channel_source = 0;
	}
	if (self->channel_fd >= 0) {
		close(self->channel_fd);
		self->channel_fd = -1;
	}
	/* the idle relays; one in use is closed by its thread */
	g_mutex_lock(&self->udp_lock);
	g_clear_pointer(&self->udp_pool, g_ptr_array_unref);
	g_mutex_unlock(&self->udp_lock);
	/* its waiting threads hold the proxy: they go now, the listener's ports close */
	if (self->listen != NULL) {
		esd_np_listen_stop(self->listen);
		g_clear_pointer(&self->listen, esd_np_listen_unref);
	}
	/* the decisions made until now still go out; none after */
	esd_np_notes_flush(self->notes);
	g_clear_object(&self->session);
	self->launch = NULL;
}

static void
esd_np_proxy_finalize(GObject *object)
{
	EsdNpProxy *self = ESD_NP_PROXY(object);

	if (self->listen != NULL) {
		esd_np_listen_stop(self->listen);
		g_clear_pointer(&self->listen, esd_np_listen_unref);
	}
	if (self->channel_fd >= 0)
		close(self->channel_fd);
	g_clear_object(&self->session); /* set only when the listener failed */
	if (self->holds_pollfd)
		g_cancellable_release_fd(self->cancellable);
	g_clear_object(&self->cancellable);
	g_clear_pointer(&self->main_context, g_main_context_unref);
	g_clear_pointer(&self->notes, esd_np_notes_unref);
	g_clear_pointer(&self->config, esd_np_config_free);
	g_clear_pointer(&self->peers, esd_np_peer_cache_free);
	g_clear_pointer(&self->upstream_http, esd_np_upstream_free);
	g_clear_pointer(&self->upstream_tunnel, esd_np_upstream_free);
	g_clear_pointer(&self->creds, esd_np_creds_free);
	g_clear_pointer(&self->ca, esd_np_ca_unref);
	g_clear_pointer(&self->udp_pool, g_ptr_array_unref);
	g_mutex_clear(&self->udp_lock);
	g_free(self->process_id);
	G_OBJECT_CLASS(esd_np_proxy_parent_class)->finalize(object);
}

static void
esd_np_proxy_init(EsdNpProxy *self)
{
	GPollFD pollfd;

	self->cancellable = g_cancellable_new();
	/*
	 * each blocking wait of a connection thread (connect, read, the relay)
	 * polls the cancellable: holding its descriptor keeps GLib from making
	 * and closing an eventfd for every one
	 */
	self->holds_pollfd = g_cancellable_make_pollfd(self->cancellable, &pollfd);
	self->cancel_fd = self->holds_pollfd ? pollfd.fd : -1;
	self->peers = esd_np_peer_cache_new();
	self->channel_fd = -1;
	g_mutex_init(&self->udp_lock);
}

static void
esd_np_proxy_class_init(EsdNpProxyClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = esd_np_proxy_finalize;
}
