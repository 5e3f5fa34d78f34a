/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

/*
 * Fuzzes the SOCKS5 UDP header parser of the managed network proxy
 * (esd_np_request_parse_udp() in plugins/network-proxy/esd-np-request.c):
 * the datagrams a client sends to its UDP relay. Besides memory errors it
 * aborts when an accepted header breaks what the relay relies on: a
 * payload offset past the datagram, a fragment accepted, an empty host or
 * one longer than a SOCKS name, an address type whose host is not an
 * address, or a name holding a NUL.
 */

#include "config.h"

#include <gio/gio.h>
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
	fprintf(stderr, "fuzz-np-udp: %s\n", what);
	abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	guint16 port = 0;
	gsize offset = 0;
	g_autofree gchar *host = esd_np_request_parse_udp(data, size, &port, &offset);
	g_autofree gchar *normalized = NULL;

	if (host == NULL)
		return 0;
	if (offset > size || offset < 8)
		fuzz_fail("the payload offset is out of the datagram");
	if (data[2] != 0)
		fuzz_fail("a fragment accepted");
	if (host[0] == '\0' || strlen(host) > 255)
		fuzz_fail("a host out of bounds");
	if (port != (guint16)((data[offset - 2] << 8) | data[offset - 1]))
		fuzz_fail("the port is not the two bytes before the payload");
	if (data[3] == 3) {
		if (strlen(host) != data[4] || memcmp(host, data + 5, data[4]) != 0)
			fuzz_fail("the name is not the header's");
	} else {
		g_autoptr(GInetAddress) address = g_inet_address_new_from_string(host);
		if (address == NULL)
			fuzz_fail("an address type whose host is no address");
	}
	normalized = esd_np_policy_normalize_host(host);
	if (normalized != NULL && normalized[0] == '\0')
		fuzz_fail("an empty normalized host");
	return 0;
}
