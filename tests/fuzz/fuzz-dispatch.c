/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <stdint.h>
#include <string.h>

#include "esd-mock-transport.h"
#include "esd-server.h"

/*
 * Feeds each line of the input as one frame to a fresh connection of an
 * in-process server, so that the dispatcher and every request parser it
 * reaches see hostile sequences: handshakes out of order, params of every
 * shape, fatal messages followed by more input.
 */

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static EsdServer *fuzz_server = NULL;

static void
fuzz_log_handler(const gchar *log_domain,
		 GLogLevelFlags log_level,
		 const gchar *message,
		 gpointer user_data)
{
	/* a peer must never cause more than a message */
	if (log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
		g_error("peer input caused: %s", message);
}

static EsdServer *
fuzz_get_server(void)
{
	g_autoptr(GError) error = NULL;

	if (fuzz_server != NULL)
		return fuzz_server;
	g_log_set_default_handler(fuzz_log_handler, NULL);
	fuzz_server = g_object_new(ESD_TYPE_SERVER,
				   "max-message-size",
				   (guint64)65536,
				   "session-grace",
				   1u,
				   NULL);
	if (!esd_server_setup(fuzz_server, &error))
		g_error("%s", error->message);
	return fuzz_server;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	EsdServer *server = fuzz_get_server();
	g_autoptr(EsdMockTransport) transport = esd_mock_transport_new();
	const gchar *p = (const gchar *)data;
	const gchar *end = p + size;

	esd_server_add_transport(server, ERPC_TRANSPORT(transport));
	while (p < end && !erpc_transport_is_closed(ERPC_TRANSPORT(transport))) {
		const gchar *nl = memchr(p, '\n', end - p);
		gsize len = nl != NULL ? (gsize)(nl - p) : (gsize)(end - p);
		/* random commands are not run: processes have their own tests */
		if (g_strstr_len(p, (gssize)len, "process/") == NULL)
			esd_mock_transport_inject(transport, p, (gssize)len);
		p += len + 1;
	}
	erpc_transport_close(ERPC_TRANSPORT(transport), FALSE);
	while (g_main_context_iteration(NULL, FALSE))
		;
	return 0;
}
