/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "esd-mock-transport.h"
#include "esd-server.h"

/*
 * Which connections the server admits: --max-connections bounds every
 * transport, --max-connections-per-peer only peers with an address of their
 * own. Loopback addresses and local sockets are shared by every client on
 * the host, so they are not capped per address. The peers here are only
 * names on mock transports: nothing is sent anywhere.
 */

static EsdServer *
make_server(guint max_connections, guint max_per_peer)
{
	g_autoptr(GError) error = NULL;
	EsdServer *server = esd_server_new();
	EsdLimits limits = ESD_LIMITS_DEFAULT;

	g_assert_true(esd_server_setup(server, &error));
	g_assert_no_error(error);
	limits.max_connections = max_connections;
	limits.max_connections_per_peer = max_per_peer;
	esd_server_set_limits(server, &limits);
	return server;
}

/* a connection from @peer, or NULL when the server refused it */
static EsdMockTransport *
connect_from(EsdServer *server, const gchar *peer)
{
	g_autoptr(EsdMockTransport) transport =
	    g_object_new(ESD_TYPE_MOCK_TRANSPORT, "peer", peer, NULL);

	if (esd_server_add_transport_full(server,
					  ERPC_TRANSPORT(transport),
					  ESD_SERVER_CONNECTION_FLAG_NONE) == NULL) {
		g_assert_true(esd_mock_transport_get_closed(transport));
		return NULL;
	}
	g_assert_false(esd_mock_transport_get_closed(transport));
	return g_steal_pointer(&transport);
}

/* the peer hangs up; the server forgets the connection */
static void
hang_up(EsdMockTransport *transport)
{
	erpc_transport_emit_closed(ERPC_TRANSPORT(transport), NULL);
	while (g_main_context_iteration(NULL, FALSE))
		;
}

/* addresses of other hosts: two each, the third refused */
static const gchar *const capped_peers[] = {
    "websocket 192.0.2.7:40000",
    "websocket [2001:db8::7]:40000",
    "websocket [::ffff:192.0.2.8]:40000",
    "websocket 128.0.0.1:40000",
    "tcp 198.51.100.3:5000",
};

/* the host itself: not counted per address */
static const gchar *const uncapped_peers[] = {
    "websocket 127.0.0.1:40000",
    "websocket 127.255.3.4:40000",
    "websocket [::1]:40000",
    "websocket [::ffff:127.0.0.1]:40000",
    "tcp 127.0.0.1:5000",
    "unix pid 42",
    "unix socketpair",
    "unix",
    "stdio",
};

static void
test_per_peer_capped(gconstpointer data)
{
	const gchar *peer = data;
	g_autoptr(EsdServer) server = make_server(0, 2);
	g_autoptr(EsdMockTransport) a = connect_from(server, peer);
	g_autoptr(EsdMockTransport) b = connect_from(server, peer);
	g_autoptr(EsdMockTransport) c = NULL;
	g_autoptr(EsdMockTransport) other = connect_from(server, "websocket 203.0.113.9:1");

	g_assert_nonnull(a);
	g_assert_nonnull(b);
	/* another address has slots of its own */
	g_assert_nonnull(other);
	g_assert_null(connect_from(server, peer));
	/* a slot that frees up is taken again */
	hang_up(a);
	c = connect_from(server, peer);
	g_assert_nonnull(c);
	g_assert_null(connect_from(server, peer));
	esd_server_shutdown(server);
}

static void
test_per_peer_uncapped(gconstpointer data)
{
	const gchar *peer = data;
	g_autoptr(EsdServer) server = make_server(0, 2);
	g_autoptr(GPtrArray) connections = g_ptr_array_new_with_free_func(g_object_unref);

	for (guint i = 0; i < 10; i++) {
		EsdMockTransport *transport = connect_from(server, peer);
		g_assert_nonnull(transport);
		g_ptr_array_add(connections, transport);
	}
	esd_server_shutdown(server);
}

/* the global limit holds for loopback and local sockets too */
static void
test_global_limit(void)
{
	g_autoptr(EsdServer) server = make_server(3, 2);
	g_autoptr(EsdMockTransport) a = connect_from(server, "websocket 127.0.0.1:1");
	g_autoptr(EsdMockTransport) b = connect_from(server, "unix pid 42");
	g_autoptr(EsdMockTransport) c = connect_from(server, "websocket 192.0.2.7:1");
	g_autoptr(EsdMockTransport) d = NULL;

	g_assert_nonnull(a);
	g_assert_nonnull(b);
	g_assert_nonnull(c);
	g_assert_null(connect_from(server, "websocket 127.0.0.1:2"));
	g_assert_null(connect_from(server, "stdio"));
	hang_up(b);
	d = connect_from(server, "websocket [::1]:3");
	g_assert_nonnull(d);
	esd_server_shutdown(server);
}

/* the defaults serve at least a thousand sessions from one host */
static void
test_defaults(void)
{
	EsdLimits limits = ESD_LIMITS_DEFAULT;

	g_assert_cmpuint(limits.max_connections, >=, 1000);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	for (guint i = 0; i < G_N_ELEMENTS(capped_peers); i++) {
		g_autofree gchar *path =
		    g_strdup_printf("/execserverd/server/admission/capped/%s", capped_peers[i]);
		g_strdelimit(path, " ", '-');
		g_test_add_data_func(path, capped_peers[i], test_per_peer_capped);
	}
	for (guint i = 0; i < G_N_ELEMENTS(uncapped_peers); i++) {
		g_autofree gchar *path =
		    g_strdup_printf("/execserverd/server/admission/uncapped/%s", uncapped_peers[i]);
		g_strdelimit(path, " ", '-');
		g_test_add_data_func(path, uncapped_peers[i], test_per_peer_uncapped);
	}
	g_test_add_func("/execserverd/server/admission/global-limit", test_global_limit);
	g_test_add_func("/execserverd/server/admission/defaults", test_defaults);
	return g_test_run();
}
