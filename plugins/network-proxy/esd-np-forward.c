/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include "esd-np-forward.h"
#include "esd-np-io.h"
#include "esd-np-relay.h"
#include "esd-np-request.h"

/*
 * One plain HTTP exchange through the forward proxy: the request the
 * policy checked, and the response to it, nothing more. The request's body
 * is framed (esd-np-http1.c) and passed on; whatever the client sends after
 * it would be a second request the policy never saw, and is not passed on.
 * The response's head is passed on with `Connection: close` (so that the
 * client makes its next request on a new connection, checked there), its
 * body framed, spliced when its length is known, and the exchange ends with
 * it, even if the server keeps its connection open. A 101 to an upgrade
 * turns the rest into a tunnel, as CONNECT does.
 */

#define ESD_NP_FORWARD_BUFFER	   (64 * 1024)
#define ESD_NP_FORWARD_MAX_HEAD	   (64 * 1024)
#define ESD_NP_FORWARD_MAX_INTERIM 16 /* 1xx heads before the final one */

/* the request's body bytes of @data onward, the rest dropped; FALSE on a write error */
static gboolean
esd_np_forward_request_bytes(EsdNpForward *f, const guint8 *data, gsize len, gboolean *done)
{
	gssize used;

	if (*done || len == 0)
		return TRUE;
	used = esd_np_body_feed(&f->body, data, len, done);
	if (used < 0)
		return FALSE;
	if (used > 0 &&
	    !esd_np_io_write_all(f->upstream, data, (gsize)used, f->cancel_fd, f->timeout_ms))
		return FALSE;
	if ((gsize)used < len)
		g_debug("a request sent after the one checked, not passed on");
	return TRUE;
}

/*
 * the response's head once complete in @head: passed on; TRUE with @response
 * set for the final one, TRUE with it NULL for more to read, FALSE to end
 */
static gboolean
esd_np_forward_response(EsdNpForward *f,
			GByteArray *head,
			guint *interim,
			EsdNpResponse **response,
			gboolean *upgraded)
{
	while (TRUE) {
		gssize end = esd_np_request_find_end((const gchar *)head->data, head->len);
		g_autoptr(EsdNpResponse) parsed = NULL;
		g_autofree gchar *text = NULL;

		*response = NULL;
		if (end < 0)
			return head->len < ESD_NP_FORWARD_MAX_HEAD;
		parsed = esd_np_response_parse((const gchar *)head->data, (gsize)end);
		if (parsed == NULL) {
			g_debug("a response head that does not parse, the exchange ends");
			return FALSE;
		}
		if (parsed->status == 101) {
			/* only the upgrade the request asked for: the rest is no HTTP then */
			if (!f->upgrade)
				return FALSE;
			*upgraded = TRUE;
			return esd_np_io_write_all(f->client,
						   head->data,
						   head->len,
						   f->cancel_fd,
						   f->timeout_ms);
		}
		if (parsed->status < 200) {
			if (++*interim > ESD_NP_FORWARD_MAX_INTERIM ||
			    !esd_np_io_write_all(f->client,
						 head->data,
						 (gsize)end,
						 f->cancel_fd,
						 f->timeout_ms))
				return FALSE;
			g_byte_array_remove_range(head, 0, (guint)end);
			continue;
		}
		text = esd_np_response_close_head((const gchar *)head->data, (gsize)end);
		if (!esd_np_io_write_all(f->client,
					 text,
					 strlen(text),
					 f->cancel_fd,
					 f->timeout_ms))
			return FALSE;
		g_byte_array_remove_range(head, 0, (guint)end);
		*response = g_steal_pointer(&parsed);
		return TRUE;
	}
}

/* the response's body after its head: @early first, then from upstream */
static void
esd_np_forward_response_body(EsdNpForward *f, EsdNpBody *body, GByteArray *early, guint8 *buffer)
{
	gboolean done = FALSE;
	gssize used = esd_np_body_feed(body, early->data, early->len, &done);

	if (used < 0 || (used > 0 && !esd_np_io_write_all(f->client,
							  early->data,
							  (gsize)used,
							  f->cancel_fd,
							  f->timeout_ms)))
		return;
	if (done)
		return;
	/* a length, or to the end: spliced, never through user space */
	if (body->kind == ESD_NP_BODY_LENGTH || body->kind == ESD_NP_BODY_CLOSE) {
		(void)esd_np_relay_splice(f->upstream,
					  f->client,
					  body->kind == ESD_NP_BODY_LENGTH ? body->remaining
									   : G_MAXUINT64,
					  f->cancel_fd);
		return;
	}
	while (!done) {
		gssize n =
		    esd_np_io_read(f->upstream, buffer, ESD_NP_FORWARD_BUFFER, f->cancel_fd, -1);

		if (n <= 0)
			return;
		used = esd_np_body_feed(body, buffer, (gsize)n, &done);
		if (used < 0 || (used > 0 && !esd_np_io_write_all(f->client,
								  buffer,
								  (gsize)used,
								  f->cancel_fd,
								  f->timeout_ms)))
			return;
	}
}

/**
 * esd_np_forward_run:
 * @forward: the exchange
 *
 * Passes on the rest of the request and the response to it (see above).
 * Blocks the calling thread; neither socket is closed.
 */
void
esd_np_forward_run(EsdNpForward *f)
{
	g_autofree guint8 *buffer = g_malloc(ESD_NP_FORWARD_BUFFER);
	g_autoptr(GByteArray) head = g_byte_array_new();
	g_autoptr(EsdNpResponse) response = NULL;
	gboolean request_done = f->body.kind == ESD_NP_BODY_NONE;
	gboolean client_open = TRUE;
	gboolean upgraded = FALSE;
	guint interim = 0;
	EsdNpBody body = {0};

	if (!esd_np_forward_request_bytes(f, f->early, f->early_len, &request_done))
		return;
	/* the request's body up, the response's head down, whichever comes */
	while (response == NULL) {
		struct pollfd fds[3] = {{.fd = client_open ? f->client : -1, .events = POLLIN},
					{.fd = f->upstream, .events = POLLIN},
					{.fd = f->cancel_fd, .events = POLLIN}};
		gssize n;

		if (poll(fds, f->cancel_fd >= 0 ? 3 : 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (f->cancel_fd >= 0 && (fds[2].revents & POLLIN))
			return;
		if (fds[0].revents != 0) {
			n = recv(f->client, buffer, ESD_NP_FORWARD_BUFFER, MSG_DONTWAIT);
			if (n == 0) {
				/* the client is done sending: a request without its body ends here
				 */
				if (!request_done)
					return;
				client_open = FALSE;
				shutdown(f->upstream, SHUT_WR);
			} else if (n > 0 && !esd_np_forward_request_bytes(f,
									  buffer,
									  (gsize)n,
									  &request_done)) {
				return;
			} else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
				   errno != EINTR) {
				return;
			}
		}
		if (fds[1].revents != 0) {
			guint len = head->len;

			g_byte_array_set_size(head, len + ESD_NP_FORWARD_BUFFER);
			n = recv(f->upstream,
				 head->data + len,
				 ESD_NP_FORWARD_BUFFER,
				 MSG_DONTWAIT);
			g_byte_array_set_size(head, len + (guint)MAX(n, 0));
			if (n == 0 ||
			    (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
				return;
			if (!esd_np_forward_response(f, head, &interim, &response, &upgraded))
				return;
			if (upgraded) {
				esd_np_relay_run(f->client, f->upstream, f->cancel_fd);
				return;
			}
		}
	}
	if (!esd_np_body_init_response(&body, response, f->method))
		return;
	esd_np_forward_response_body(f, &body, head, buffer);
}
