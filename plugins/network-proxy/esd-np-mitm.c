/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "esd-np-http1.h"
#include "esd-np-io.h"
#include "esd-np-mitm.h"
#include "esd-np-request.h"

/*
 * A tunnel whose destination a masked secret is bound to
 * (esd_np_creds_intercepts()): the proxy ends the command's TLS itself, as
 * the destination, with a certificate of its authority (esd-np-ca.c), and
 * opens a TLS connection of its own to the destination, whose certificate
 * it checks against the daemon's trust store. It reads each request's
 * head, refuses one whose `Host` names another destination (and in limited
 * mode one whose method is not read-only), puts the secrets in
 * (esd_np_creds_apply()) and sends the head on; the framing of both
 * directions (esd-np-http1.c) says where the next head starts and when a
 * refusal's turn to be answered has come. A destination whose certificate
 * does not verify gets no request: the command gets a 502.
 *
 * OpenSSL works on BIO pairs here: the socket I/O stays this plugin's
 * (esd-np-io.c, with the proxy's cancel descriptor and timeout), and the
 * bytes a client sent after its CONNECT start the handshake.
 */

#define ESD_NP_MITM_BLOCK 16384	      /* plaintext: a TLS record at most */
#define ESD_NP_MITM_RING  (64 * 1024) /* each way between OpenSSL and a socket */

/*
 * One TLS end. OpenSSL reads and writes one half of a BIO pair; the other
 * half's ring buffers are read from and written to the socket in place
 * (BIO_nread0(), BIO_nwrite0()), so no byte is copied between the two.
 */
typedef struct {
	SSL *ssl;
	BIO *net; /* the socket's half of the pair */
	gint fd;
	const EsdNpMitmTarget *target;
} EsdNpTls;

static void
esd_np_tls_clear(EsdNpTls *tls)
{
	g_clear_pointer(&tls->ssl, SSL_free);
	g_clear_pointer(&tls->net, BIO_free);
}

static gboolean
esd_np_tls_init(EsdNpTls *tls, SSL_CTX *context, gint fd, const EsdNpMitmTarget *target)
{
	BIO *internal = NULL;

	tls->fd = fd;
	tls->target = target;
	tls->ssl = SSL_new(context);
	if (tls->ssl == NULL ||
	    BIO_new_bio_pair(&internal, ESD_NP_MITM_RING, &tls->net, ESD_NP_MITM_RING) != 1)
		return FALSE;
	SSL_set_bio(tls->ssl, internal, internal);
	return TRUE;
}

/* what OpenSSL has written, onto the socket */
static gboolean
esd_np_tls_flush(EsdNpTls *tls)
{
	while (TRUE) {
		gchar *data = NULL;
		gint len = BIO_nread0(tls->net, &data);

		if (len <= 0)
			return TRUE;
		if (!esd_np_io_write_all(tls->fd,
					 data,
					 (gsize)len,
					 tls->target->cancel_fd,
					 tls->target->timeout_ms))
			return FALSE;
		(void)BIO_nread(tls->net, &data, len);
	}
}

/* one read of the socket, into OpenSSL; @wait: until there is something */
static gboolean
esd_np_tls_fill(EsdNpTls *tls, gboolean wait)
{
	gchar *room = NULL;
	gint len = BIO_nwrite0(tls->net, &room);
	gssize n;

	/* full: OpenSSL has a record to read first */
	if (len <= 0)
		return !wait;
	if (wait) {
		n = esd_np_io_read(tls->fd,
				   room,
				   (gsize)len,
				   tls->target->cancel_fd,
				   tls->target->timeout_ms);
	} else {
		do
			n = recv(tls->fd, room, (gsize)len, 0);
		while (n < 0 && errno == EINTR);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return TRUE;
	}
	if (n <= 0)
		return FALSE;
	return BIO_nwrite(tls->net, &room, (gint)n) == (gint)n;
}

/* @len bytes of plaintext into OpenSSL, sent as the ring fills */
static gboolean
esd_np_tls_put(EsdNpTls *tls, gconstpointer buffer, gsize len)
{
	const guint8 *p = buffer;

	while (len > 0) {
		gsize done = 0;
		gint r = SSL_write_ex(tls->ssl, p, len, &done);

		if (r == 1) {
			p += done;
			len -= done;
			continue;
		}
		if (SSL_get_error(tls->ssl, r) != SSL_ERROR_WANT_WRITE || !esd_np_tls_flush(tls))
			return FALSE;
	}
	return TRUE;
}

static gboolean
esd_np_tls_handshake(EsdNpTls *tls)
{
	while (TRUE) {
		gint r = SSL_do_handshake(tls->ssl);

		if (!esd_np_tls_flush(tls))
			return FALSE;
		if (r == 1)
			return TRUE;
		if (SSL_get_error(tls->ssl, r) != SSL_ERROR_WANT_READ ||
		    !esd_np_tls_fill(tls, TRUE))
			return FALSE;
	}
}

static gboolean
esd_np_tls_write(EsdNpTls *tls, gconstpointer buffer, gsize len)
{
	return esd_np_tls_put(tls, buffer, len) && esd_np_tls_flush(tls);
}

/* what @tls's socket has now (with @fill) and OpenSSL holds, decrypted, onto @into;
 * FALSE once it ended (what came before the end is there) */
static gboolean
esd_np_tls_drain(EsdNpTls *tls, GByteArray *into, gboolean fill)
{
	if (fill && !esd_np_tls_fill(tls, FALSE))
		return FALSE;
	while (TRUE) {
		guint len = into->len;
		gsize got = 0;
		gint r;

		g_byte_array_set_size(into, len + ESD_NP_MITM_BLOCK);
		r = SSL_read_ex(tls->ssl, into->data + len, ESD_NP_MITM_BLOCK, &got);
		g_byte_array_set_size(into, len + (guint)(r == 1 ? got : 0));
		if (!esd_np_tls_flush(tls))
			return FALSE;
		if (r == 1)
			continue;
		switch (SSL_get_error(tls->ssl, r)) {
		case SSL_ERROR_WANT_WRITE: /* flushed above */
			continue;
		case SSL_ERROR_WANT_READ:
			return TRUE;
		default:
			return FALSE;
		}
	}
}

/* a response of the proxy's own, as esd-np-proxy.c writes them, and the end */
static void
esd_np_tls_respond(EsdNpTls *client, const gchar *status, const gchar *header, const gchar *body)
{
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();
	g_autofree gchar *date = g_date_time_format(now, "%a, %d %b %Y %H:%M:%S GMT");
	g_autoptr(GString) reply = g_string_new(NULL);

	g_string_append_printf(reply, "HTTP/1.1 %s\r\ncontent-type: text/plain\r\n", status);
	if (header != NULL)
		g_string_append_printf(reply, "x-proxy-error: %s\r\n", header);
	g_string_append_printf(reply,
			       "content-length: %zu\r\ndate: %s\r\nconnection: close\r\n\r\n%s",
			       strlen(body),
			       date,
			       body);
	if (esd_np_tls_write(client, reply->str, reply->len)) {
		(void)SSL_shutdown(client->ssl);
		(void)esd_np_tls_flush(client);
	}
}

/* the destination's name, for SNI and for the check of its certificate */
static gboolean
esd_np_mitm_expect(SSL *ssl, const gchar *host)
{
	g_autoptr(GInetAddress) address = g_inet_address_new_from_string(host);

	if (address != NULL)
		return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1;
	return SSL_set_tlsext_host_name(ssl, host) == 1 && SSL_set1_host(ssl, host) == 1;
}

/* one intercepted connection: both TLS ends and the framing of its messages */
typedef struct {
	const EsdNpCreds *creds;
	const EsdNpMitmTarget *target;
	EsdNpTls down; /* to the command */
	EsdNpTls up;   /* to the destination */
	gboolean up_ready;
	GByteArray *from_client; /* decrypted, not passed on yet */
	GByteArray *from_server;
	EsdNpBody request_body; /* of the request being passed on */
	gboolean in_request;
	EsdNpBody response_body;
	gboolean in_response;
	GQueue methods;	    /* of the requests sent and not answered yet */
	gboolean upgrading; /* an upgrade was asked: the client's bytes wait for the answer */
	gboolean tunnel;    /* upgraded: no HTTP any more, bytes go as they are */
	/* a refused request, answered once the responses before it went */
	const gchar *refusal_status;
	const gchar *refusal_header;
	const gchar *refusal_body;
} EsdNpMitm;

static void
esd_np_mitm_refuse(EsdNpMitm *m, const gchar *status, const gchar *header, const gchar *body)
{
	m->refusal_status = status;
	m->refusal_header = header;
	m->refusal_body = body;
	/* nothing the client sent after it is read */
	g_byte_array_set_size(m->from_client, 0);
}

/* answers a refusal whose turn it is; FALSE: the connection ends */
static gboolean
esd_np_mitm_answer_refusal(EsdNpMitm *m)
{
	if (m->refusal_status == NULL || !g_queue_is_empty(&m->methods) || m->in_response)
		return TRUE;
	esd_np_tls_respond(&m->down, m->refusal_status, m->refusal_header, m->refusal_body);
	return FALSE;
}

static void
esd_np_mitm_wipe_request(EsdNpRequest *request)
{
	for (guint i = 0; i < request->headers->len; i++) {
		gchar *value = request->headers->pdata[i];
		memset(value, 0, strlen(value));
	}
}

/* the next request's head: checked, the secrets put in, sent; FALSE: the connection ends */
static gboolean
esd_np_mitm_request(EsdNpMitm *m, gsize end)
{
	const EsdNpMitmTarget *target = m->target;
	g_autoptr(EsdNpRequest) request = NULL;
	gchar *head;
	guint masked;
	gboolean sent;
	glong verified;

	request = esd_np_request_parse_origin((const gchar *)m->from_client->data,
					      end,
					      target->authority,
					      target->port);
	memset(m->from_client->data, 0, end);
	g_byte_array_remove_range(m->from_client, 0, (guint)end);
	if (request == NULL || !esd_np_body_init_request(&m->request_body, request->headers)) {
		esd_np_mitm_refuse(m, "400 Bad Request", NULL, "bad request");
		return TRUE;
	}
	/* the secrets are bound to the tunnel's destination, which a `Host` cannot change */
	if (!esd_np_request_host_matches(request)) {
		esd_np_mitm_refuse(m, "400 Bad Request", NULL, "host mismatch");
		return TRUE;
	}
	/* limited mode, which the tunnel was intercepted for when no secret may go there */
	if (target->limited && !esd_np_request_method_is_read(request->method)) {
		esd_np_mitm_refuse(m,
				   "403 Forbidden",
				   "blocked-by-method-policy",
				   "Method not allowed in limited mode.");
		return TRUE;
	}
	if (!m->up_ready) {
		if (!esd_np_tls_handshake(&m->up)) {
			verified = SSL_get_verify_result(m->up.ssl);
			g_message("%s: TLS to %s:%u failed: %s",
				  target->process_id,
				  target->host,
				  target->port,
				  verified != X509_V_OK ? X509_verify_cert_error_string(verified)
							: "handshake failed");
			esd_np_tls_respond(&m->down,
					   "502 Bad Gateway",
					   NULL,
					   "mitm upstream error");
			return FALSE;
		}
		m->up_ready = TRUE;
	}
	masked = esd_np_creds_apply(m->creds,
				    TRUE,
				    target->host,
				    target->port,
				    request->path,
				    request->headers);
	if (masked > 0)
		g_debug("%s: %u credential header(s) put into a request to %s:%u",
			target->process_id,
			masked,
			target->host,
			target->port);
	head = esd_np_request_forward_head_full(request, FALSE, TRUE);
	sent = esd_np_tls_put(&m->up, head, strlen(head));
	/* the real secrets do not stay in freed memory */
	memset(head, 0, strlen(head));
	g_free(head);
	esd_np_mitm_wipe_request(request);
	if (!sent)
		return FALSE;
	g_queue_push_tail(&m->methods, g_strdup(request->method));
	m->in_request = m->request_body.kind != ESD_NP_BODY_NONE;
	m->upgrading = esd_np_request_is_upgrade(request);
	return TRUE;
}

/* what the client sent, passed on message by message; FALSE: the connection ends */
static gboolean
esd_np_mitm_client(EsdNpMitm *m)
{
	GByteArray *in = m->from_client;

	while (in->len > 0 && m->refusal_status == NULL && !m->upgrading) {
		gboolean done = FALSE;
		gssize n;
		gssize end;

		if (m->tunnel) {
			if (!esd_np_tls_put(&m->up, in->data, in->len))
				return FALSE;
			g_byte_array_set_size(in, 0);
			break;
		}
		if (m->in_request) {
			n = esd_np_body_feed(&m->request_body, in->data, in->len, &done);
			if (n < 0) {
				esd_np_mitm_refuse(m, "400 Bad Request", NULL, "bad request");
				break;
			}
			if (!esd_np_tls_put(&m->up, in->data, (gsize)n))
				return FALSE;
			g_byte_array_remove_range(in, 0, (guint)n);
			m->in_request = !done;
			continue;
		}
		end = esd_np_request_find_end((const gchar *)in->data, in->len);
		if (end < 0) {
			if (in->len >= ESD_NP_REQUEST_MAX_HEAD)
				esd_np_mitm_refuse(m, "400 Bad Request", NULL, "bad request");
			break;
		}
		if (!esd_np_mitm_request(m, (gsize)end))
			return FALSE;
	}
	return esd_np_mitm_answer_refusal(m) && esd_np_tls_flush(&m->up);
}

/* what the destination sent, passed on, each response matched to its request */
static gboolean
esd_np_mitm_server(EsdNpMitm *m)
{
	GByteArray *in = m->from_server;

	while (in->len > 0) {
		g_autoptr(EsdNpResponse) response = NULL;
		gboolean done = FALSE;
		gssize n;
		gssize end;

		if (m->tunnel) {
			if (!esd_np_tls_put(&m->down, in->data, in->len))
				return FALSE;
			g_byte_array_set_size(in, 0);
			break;
		}
		if (m->in_response) {
			n = esd_np_body_feed(&m->response_body, in->data, in->len, &done);
			if (n < 0 || !esd_np_tls_put(&m->down, in->data, (gsize)n))
				return FALSE;
			g_byte_array_remove_range(in, 0, (guint)n);
			if (done) {
				m->in_response = FALSE;
				g_free(g_queue_pop_head(&m->methods));
			}
			continue;
		}
		end = esd_np_request_find_end((const gchar *)in->data, in->len);
		if (end < 0) {
			if (in->len >= ESD_NP_REQUEST_MAX_HEAD)
				return FALSE;
			break;
		}
		/* a response nobody asked for, or one that does not parse: the connection ends */
		response = esd_np_response_parse((const gchar *)in->data, (gsize)end);
		if (response == NULL || g_queue_is_empty(&m->methods))
			return FALSE;
		if (!esd_np_tls_put(&m->down, in->data, (gsize)end))
			return FALSE;
		g_byte_array_remove_range(in, 0, (guint)end);
		/* an interim response: the final one follows */
		if (response->status / 100 == 1 && response->status != 101)
			continue;
		if (!esd_np_body_init_response(&m->response_body,
					       response,
					       g_queue_peek_head(&m->methods)))
			return FALSE;
		if (m->response_body.kind == ESD_NP_BODY_TUNNEL) {
			m->tunnel = TRUE;
			m->upgrading = FALSE;
			continue;
		}
		m->upgrading = FALSE;
		m->in_response = m->response_body.kind != ESD_NP_BODY_NONE;
		if (!m->in_response)
			g_free(g_queue_pop_head(&m->methods));
	}
	if (!esd_np_tls_flush(&m->down))
		return FALSE;
	/* an answer may have let the client's waiting bytes go, or a refusal's turn come */
	return esd_np_mitm_client(m);
}

/* both ways until either side ends, the wait times out or the proxy stops */
static void
esd_np_mitm_pump(EsdNpMitm *m)
{
	const EsdNpMitmTarget *target = m->target;

	/* what came with the handshake is not on the socket any more */
	if (!esd_np_tls_drain(&m->down, m->from_client, FALSE) || !esd_np_mitm_client(m))
		return;
	while (TRUE) {
		gboolean hold = m->refusal_status != NULL || m->upgrading ||
				m->from_client->len >= ESD_NP_REQUEST_MAX_HEAD;
		struct pollfd fds[3] = {{.fd = hold ? -1 : m->down.fd, .events = POLLIN},
					{.fd = m->up_ready ? m->up.fd : -1, .events = POLLIN},
					{.fd = target->cancel_fd, .events = POLLIN}};
		gboolean ended;
		gint n = poll(fds, 3, target->timeout_ms);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || fds[2].revents != 0)
			return;
		if (fds[1].revents != 0) {
			ended = !esd_np_tls_drain(&m->up, m->from_server, TRUE);
			if (!esd_np_mitm_server(m))
				return;
			if (ended)
				break;
		}
		if (fds[0].revents != 0) {
			ended = !esd_np_tls_drain(&m->down, m->from_client, TRUE);
			if (!esd_np_mitm_client(m) || ended)
				return;
		}
	}
	/* the destination ended the exchange: so does the client's side */
	(void)SSL_shutdown(m->down.ssl);
	(void)esd_np_tls_flush(&m->down);
}

/**
 * esd_np_mitm_serve:
 * @ca: the plugin's authority
 * @creds: the launch's secrets
 * @target: the tunnel's destination, its wait and its cancel descriptor
 * @client: the command's connection, its CONNECT answered
 * @upstream: the connection to the destination (or through the upstream proxy)
 * @early: what the client sent after its CONNECT
 *
 * Serves one intercepted tunnel; returns when it ends. Runs in the
 * connection's thread.
 */
void
esd_np_mitm_serve(EsdNpCa *ca,
		  const EsdNpCreds *creds,
		  const EsdNpMitmTarget *target,
		  gint client,
		  gint upstream,
		  const GByteArray *early)
{
	g_autoptr(GError) error = NULL;
	SSL_CTX *context = esd_np_ca_server_context(ca, target->host, &error);
	EsdNpMitm m = {.creds = creds, .target = target};

	if (context == NULL) {
		g_message("%s: cannot intercept %s: %s",
			  target->process_id,
			  target->host,
			  error->message);
		return;
	}
	m.from_client = g_byte_array_new();
	m.from_server = g_byte_array_new();
	g_queue_init(&m.methods);
	if (!esd_np_tls_init(&m.down, context, client, target) ||
	    !esd_np_tls_init(&m.up, esd_np_ca_client_context(ca), upstream, target) ||
	    !esd_np_mitm_expect(m.up.ssl, target->host)) {
		g_message("%s: cannot set up TLS for %s", target->process_id, target->host);
		goto out;
	}
	SSL_set_accept_state(m.down.ssl);
	SSL_set_connect_state(m.up.ssl);
	if (early->len > 0 &&
	    BIO_write(m.down.net, early->data, (gint)early->len) != (gint)early->len)
		goto out;
	if (!esd_np_tls_handshake(&m.down)) {
		g_debug("%s: the client's TLS handshake for %s failed",
			target->process_id,
			target->host);
		goto out;
	}
	esd_np_mitm_pump(&m);
out:
	/* a head not passed on yet may hold a placeholder, never a secret: cleared anyway */
	memset(m.from_client->data, 0, m.from_client->len);
	g_byte_array_unref(m.from_client);
	g_byte_array_unref(m.from_server);
	g_queue_clear_full(&m.methods, g_free);
	SSL_CTX_free(context);
	esd_np_tls_clear(&m.down);
	esd_np_tls_clear(&m.up);
	ERR_clear_error();
}
