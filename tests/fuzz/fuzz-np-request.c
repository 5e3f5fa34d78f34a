/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

/*
 * Fuzzes the request head parser of the managed network proxy
 * (plugins/network-proxy/esd-np-request.c): the bytes a proxy client sends
 * before its head ends, then host normalization and the head rebuilt for
 * the origin. Besides memory errors it aborts when an accepted head breaks
 * what the proxy relies on: a target host that is empty, a port of 0, a
 * path outside origin form, a CONNECT with a path, or a rebuilt head that
 * does not end at its one blank line (a header value that smuggles a line
 * break would start a second request the policy never saw). The same head
 * is also parsed as one read inside an intercepted TLS tunnel (origin form).
 * A plain request with `x-unix-socket` is refused by the proxy, never
 * forwarded: it must come back as such (host `unix-socket`, port 0), and
 * never from inside a tunnel.
 */

#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esd-np-policy.h"
#include "esd-np-request.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_fail(const gchar *what)
{
	fprintf(stderr, "fuzz-np-request: %s\n", what);
	abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gssize end = esd_np_request_find_end((const gchar *)data, size);
	g_autoptr(EsdNpRequest) request = NULL;
	g_autofree gchar *host = NULL;

	if (end < 0)
		return 0;
	if ((gsize)end > size || memcmp(data + end - 4, "\r\n\r\n", 4) != 0)
		fuzz_fail("the end of the head is not its blank line");
	/* inside a tunnel: origin form only, the tunnel's host and port */
	request = esd_np_request_parse_origin((const gchar *)data, (gsize)end, "a.test", 443);
	if (request != NULL) {
		g_autofree gchar *head = esd_np_request_forward_head(request, FALSE);
		if (request->connect || request->unix_socket || request->path == NULL ||
		    request->path[0] != '/' || !g_str_equal(request->host, "a.test") ||
		    request->port != 443)
			fuzz_fail("an origin-form request out of shape");
		if (strstr(head, "\r\n\r\n") == NULL || strstr(head, "\r\n\r\n")[4] != '\0')
			fuzz_fail(
			    "the rebuilt origin-form head does not end at its one blank line");
		(void)esd_np_request_host_matches(request);
		g_clear_pointer(&request, esd_np_request_free);
	}
	request = esd_np_request_parse((const gchar *)data, (gsize)end);
	if (request == NULL)
		return 0;
	if (request->unix_socket) {
		if (request->connect || request->port != 0 ||
		    g_strcmp0(request->host, "unix-socket") != 0 || request->path == NULL)
			fuzz_fail("an x-unix-socket request out of shape");
		return 0;
	}
	if (request->unix_socket_invalid)
		fuzz_fail("an invalid x-unix-socket without x-unix-socket");
	if (request->host == NULL || request->host[0] == '\0' || request->port == 0)
		fuzz_fail("an accepted request without host or port");
	if (request->head_len != (gsize)end)
		fuzz_fail("head_len differs from the head");
	host = esd_np_policy_normalize_host(request->host);
	if (host != NULL && (host[0] == '\0' || strlen(host) > 253))
		fuzz_fail("a normalized host out of bounds");
	(void)esd_np_request_host_matches(request);
	if (request->connect) {
		if (request->path != NULL)
			fuzz_fail("CONNECT with a path");
		return 0;
	}
	if (request->path == NULL || request->path[0] != '/')
		fuzz_fail("a forwarded path outside origin form");
	for (guint absolute = 0; absolute < 2; absolute++) {
		g_autofree gchar *head = esd_np_request_forward_head(request, absolute);
		const gchar *blank = strstr(head, "\r\n\r\n");

		if (blank == NULL || blank[4] != '\0')
			fuzz_fail("the rebuilt head does not end at its one blank line");
		for (const gchar *p = head; *p != '\0'; p++) {
			if ((*p == '\r' && p[1] != '\n') ||
			    (*p == '\n' && (p == head || p[-1] != '\r')))
				fuzz_fail("a bare CR or LF in the rebuilt head");
		}
	}
	return 0;
}
