/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

/*
 * Fuzzes the message framing of an intercepted tunnel of the managed
 * network proxy (plugins/network-proxy/esd-np-http1.c): a head (a
 * response's, or a request's headers), then body bytes. The first byte
 * chooses the request method the response answers and how the body is
 * split. The head a forward proxy passes on (esd_np_response_close_head())
 * must be the same response, ending at one blank line, with one
 * `Connection` and no other hop-by-hop header. Besides memory errors it
 * aborts when the framing breaks what the
 * tunnel relies on: a feed that claims more bytes than it got, a body that
 * goes on after it ended, a request whose framing is accepted with both a
 * length and a coding, or a body framed differently when the same bytes
 * come in other pieces (a split that changed where a body ends would let a
 * second request pass unread).
 */

#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esd-np-http1.h"
#include "esd-np-request.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_fail(const gchar *what)
{
	fprintf(stderr, "fuzz-np-http1: %s\n", what);
	abort();
}

/* feeds @len bytes in pieces of @piece: how many the body took, or -1 */
static gssize
fuzz_feed(const EsdNpBody *start, const guint8 *data, gsize len, gsize piece, gboolean *done)
{
	EsdNpBody body = *start;
	gsize used = 0;

	*done = FALSE;
	while (used < len && !*done) {
		gsize n = MIN(piece, len - used);
		gssize took = esd_np_body_feed(&body, data + used, n, done);

		if (took < 0)
			return -1;
		if ((gsize)took > n)
			fuzz_fail("a feed took more bytes than it got");
		if ((gsize)took < n && !*done)
			fuzz_fail("a feed left bytes without ending the body");
		used += (gsize)took;
	}
	if (*done && body.kind == ESD_NP_BODY_LENGTH && body.remaining != 0)
		fuzz_fail("a length body ended with bytes left");
	return (gssize)used;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const gchar *methods[] = {"GET", "HEAD", "CONNECT", "POST"};
	g_autoptr(EsdNpResponse) response = NULL;
	EsdNpBody body;
	gssize end;
	gssize whole;
	gboolean done_whole = FALSE;
	guint8 mode;

	if (size < 1)
		return 0;
	mode = data[0];
	data++;
	size--;
	end = esd_np_request_find_end((const gchar *)data, size);
	if (end < 0)
		return 0;
	response = esd_np_response_parse((const gchar *)data, (gsize)end);
	if (response == NULL)
		return 0;
	if (response->status < 100 || response->status > 999)
		fuzz_fail("a status out of range");
	/* the head a forward proxy's client gets: the same response, closing */
	{
		g_autofree gchar *closing =
		    esd_np_response_close_head((const gchar *)data, (gsize)end);
		g_autoptr(EsdNpResponse) again = esd_np_response_parse(closing, strlen(closing));
		const gchar *blank = strstr(closing, "\r\n\r\n");
		guint connections = 0;

		if (blank == NULL || blank[4] != '\0' ||
		    !g_str_has_suffix(closing, "\r\nConnection: close\r\n\r\n"))
			fuzz_fail("a closing head that does not end at its one blank line");
		/* one header more may be over the limit of a head that had as many as allowed */
		if (again == NULL && response->headers->len / 2 < 127)
			fuzz_fail("a closing head that does not parse");
		if (again != NULL && again->status != response->status)
			fuzz_fail("a closing head that is not the same response");
		for (guint i = 0; again != NULL && i + 1 < again->headers->len; i += 2) {
			const gchar *name = g_ptr_array_index(again->headers, i);
			if (g_ascii_strcasecmp(name, "keep-alive") == 0 ||
			    g_ascii_strcasecmp(name, "proxy-connection") == 0)
				fuzz_fail("a closing head that keeps a hop-by-hop header");
			connections += g_ascii_strcasecmp(name, "connection") == 0;
		}
		if (again != NULL && connections != 1)
			fuzz_fail("a closing head with other than one Connection");
		/* the client frames the body as the proxy does */
		if (again != NULL) {
			EsdNpBody before = {0};
			EsdNpBody after = {0};
			gboolean ok_before = esd_np_body_init_response(&before, response, "GET");
			gboolean ok_after = esd_np_body_init_response(&after, again, "GET");

			if (ok_before != ok_after ||
			    (ok_before &&
			     (before.kind != after.kind || before.remaining != after.remaining)))
				fuzz_fail("a closing head framed otherwise than the response");
		}
	}
	/* the same headers as a request's */
	if (esd_np_body_init_request(&body, response->headers)) {
		gboolean has_length = FALSE;
		gboolean has_coding = FALSE;
		for (guint i = 0; i + 1 < response->headers->len; i += 2) {
			const gchar *name = g_ptr_array_index(response->headers, i);
			has_length |= g_ascii_strcasecmp(name, "content-length") == 0;
			has_coding |= g_ascii_strcasecmp(name, "transfer-encoding") == 0;
		}
		if (has_length && has_coding)
			fuzz_fail("a request framed by both a length and a coding");
		if (body.kind == ESD_NP_BODY_CLOSE || body.kind == ESD_NP_BODY_TUNNEL)
			fuzz_fail("a request body read to the end of the connection");
	}
	if (!esd_np_body_init_response(&body, response, methods[mode % 4]))
		return 0;
	whole = fuzz_feed(&body, data + end, size - (gsize)end, G_MAXSIZE, &done_whole);
	for (gsize piece = 1; piece <= 7; piece += 3) {
		gboolean done = FALSE;
		gssize split = fuzz_feed(&body, data + end, size - (gsize)end, piece, &done);

		if (split != whole || done != done_whole)
			fuzz_fail("the body ends elsewhere when it comes in other pieces");
	}
	return 0;
}
