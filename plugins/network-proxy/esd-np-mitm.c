/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "esd-np-io.h"
#include "esd-np-mitm.h"
#include "esd-np-request.h"

/*
 * A tunnel whose destination a masked secret is bound to
 * (esd_np_creds_intercepts()): the proxy ends the command's TLS itself, as
 * the destination, with a certificate of its authority (esd-np-ca.c), and
 * opens a TLS connection of its own to the destination, whose certificate
 * it checks against the daemon's trust store. It reads the request's head,
 * refuses one whose `Host` names another destination (and in limited mode
 * one whose method is not read-only), connects, puts the secrets in
 * (esd_np_creds_apply()), sends the head on with `Connection: close`, and
 * then copies both ways until either side ends: a connection carries the
 * one request whose head was read. A destination whose certificate does not
 * verify gets no request: the command gets a 502.
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

/* plaintext, waiting for it: the bytes read, 0 at the end, -1 on an error */
static gssize
esd_np_tls_read(EsdNpTls *tls, gpointer buffer, gsize len)
{
	while (TRUE) {
		gsize got = 0;
		gint r = SSL_read_ex(tls->ssl, buffer, len, &got);

		if (!esd_np_tls_flush(tls))
			return -1;
		if (r == 1)
			return (gssize)got;
		switch (SSL_get_error(tls->ssl, r)) {
		case SSL_ERROR_ZERO_RETURN:
			return 0;
		case SSL_ERROR_WANT_WRITE: /* flushed above */
			continue;
		case SSL_ERROR_WANT_READ:
			if (!esd_np_tls_fill(tls, TRUE))
				return 0;
			continue;
		default:
			return -1;
		}
	}
}

static gboolean
esd_np_tls_write(EsdNpTls *tls, gconstpointer buffer, gsize len)
{
	return esd_np_tls_put(tls, buffer, len) && esd_np_tls_flush(tls);
}

/* what @from's socket has now (with @fill) and OpenSSL holds, decrypted, to @to, in
 * one write of what it encrypted; FALSE once @from ended */
static gboolean
esd_np_tls_forward(EsdNpTls *from, EsdNpTls *to, gboolean fill)
{
	guint8 block[ESD_NP_MITM_BLOCK];

	if (fill && !esd_np_tls_fill(from, FALSE))
		return FALSE;
	while (TRUE) {
		gsize got = 0;
		gint r = SSL_read_ex(from->ssl, block, sizeof(block), &got);

		if (!esd_np_tls_flush(from))
			return FALSE;
		if (r == 1) {
			if (!esd_np_tls_put(to, block, got))
				return FALSE;
			continue;
		}
		switch (SSL_get_error(from->ssl, r)) {
		case SSL_ERROR_WANT_WRITE: /* flushed above */
			continue;
		case SSL_ERROR_WANT_READ:
			return esd_np_tls_flush(to);
		default:
			/* what came before the end still goes */
			(void)esd_np_tls_flush(to);
			return FALSE;
		}
	}
}

/* both ways until either side ends, the wait times out or the proxy stops */
static void
esd_np_tls_pump(EsdNpTls *client, EsdNpTls *server)
{
	/* what came with the handshakes and the head is not on the sockets any more */
	if (!esd_np_tls_forward(client, server, FALSE))
		return;
	if (!esd_np_tls_forward(server, client, FALSE))
		goto ended;
	while (TRUE) {
		struct pollfd fds[3] = {{.fd = client->fd, .events = POLLIN},
					{.fd = server->fd, .events = POLLIN},
					{.fd = client->target->cancel_fd, .events = POLLIN}};
		gint n = poll(fds, 3, client->target->timeout_ms);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || fds[2].revents != 0)
			return;
		if (fds[1].revents != 0 && !esd_np_tls_forward(server, client, TRUE))
			break;
		if (fds[0].revents != 0 && !esd_np_tls_forward(client, server, TRUE))
			return;
	}
ended:
	/* the destination ended the exchange: so does the client's side */
	(void)SSL_shutdown(client->ssl);
	(void)esd_np_tls_flush(client);
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

/* the decrypted head of the client's request, and what came after it */
static EsdNpRequest *
esd_np_mitm_read_head(EsdNpTls *client, GByteArray *buffer)
{
	const EsdNpMitmTarget *target = client->target;

	while (TRUE) {
		guint len = buffer->len;
		gssize n;
		gssize end = esd_np_request_find_end((const gchar *)buffer->data, buffer->len);

		if (end > 0) {
			EsdNpRequest *request =
			    esd_np_request_parse_origin((const gchar *)buffer->data,
							(gsize)end,
							target->authority,
							target->port);
			g_byte_array_remove_range(buffer, 0, (guint)end);
			return request;
		}
		if (buffer->len >= ESD_NP_REQUEST_MAX_HEAD)
			return NULL;
		g_byte_array_set_size(buffer, MIN(len + 4096, ESD_NP_REQUEST_MAX_HEAD));
		n = esd_np_tls_read(client, buffer->data + len, buffer->len - len);
		g_byte_array_set_size(buffer, len + (guint)MAX(n, 0));
		if (n <= 0)
			return NULL;
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
	g_autoptr(GByteArray) rest = g_byte_array_new();
	g_autoptr(EsdNpRequest) request = NULL;
	SSL_CTX *context = esd_np_ca_server_context(ca, target->host, &error);
	EsdNpTls down = {0};
	EsdNpTls up = {0};
	gchar *head = NULL;
	guint masked;
	glong verified;

	if (context == NULL) {
		g_message("%s: cannot intercept %s: %s",
			  target->process_id,
			  target->host,
			  error->message);
		return;
	}
	if (!esd_np_tls_init(&down, context, client, target) ||
	    !esd_np_tls_init(&up, esd_np_ca_client_context(ca), upstream, target) ||
	    !esd_np_mitm_expect(up.ssl, target->host)) {
		g_message("%s: cannot set up TLS for %s", target->process_id, target->host);
		goto out;
	}
	SSL_CTX_free(g_steal_pointer(&context));
	SSL_set_accept_state(down.ssl);
	SSL_set_connect_state(up.ssl);
	if (early->len > 0 &&
	    BIO_write(down.net, early->data, (gint)early->len) != (gint)early->len)
		goto out;
	if (!esd_np_tls_handshake(&down)) {
		g_debug("%s: the client's TLS handshake for %s failed",
			target->process_id,
			target->host);
		goto out;
	}
	request = esd_np_mitm_read_head(&down, rest);
	if (request == NULL) {
		esd_np_tls_respond(&down, "400 Bad Request", NULL, "bad request");
		goto out;
	}
	/* the secrets are bound to the tunnel's destination, which a `Host` cannot change */
	if (!esd_np_request_host_matches(request)) {
		esd_np_tls_respond(&down, "400 Bad Request", NULL, "host mismatch");
		goto out;
	}
	/* limited mode, which the tunnel was intercepted for when no secret may go there */
	if (target->limited && !esd_np_request_method_is_read(request->method)) {
		esd_np_tls_respond(&down,
				   "403 Forbidden",
				   "blocked-by-method-policy",
				   "Method not allowed in limited mode.");
		goto out;
	}
	if (!esd_np_tls_handshake(&up)) {
		verified = SSL_get_verify_result(up.ssl);
		g_message("%s: TLS to %s:%u failed: %s",
			  target->process_id,
			  target->host,
			  target->port,
			  verified != X509_V_OK ? X509_verify_cert_error_string(verified)
						: "handshake failed");
		esd_np_tls_respond(&down, "502 Bad Gateway", NULL, "mitm upstream error");
		goto out;
	}
	masked = esd_np_creds_apply(creds,
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
	head = esd_np_request_forward_head(request, FALSE);
	if (!esd_np_tls_write(&up, head, strlen(head)) ||
	    !esd_np_tls_write(&up, rest->data, rest->len))
		goto out;
	esd_np_tls_pump(&down, &up);
out:
	/* the real secrets do not stay in freed memory */
	if (head != NULL) {
		memset(head, 0, strlen(head));
		g_free(head);
	}
	if (request != NULL) {
		for (guint i = 0; i < request->headers->len; i++) {
			gchar *value = request->headers->pdata[i];
			memset(value, 0, strlen(value));
		}
	}
	if (context != NULL)
		SSL_CTX_free(context);
	esd_np_tls_clear(&down);
	esd_np_tls_clear(&up);
	ERR_clear_error();
}
