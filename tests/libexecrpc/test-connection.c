/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "erpc-connection.h"
#include "erpc-json.h"
#include "erpc-message.h"
#include "esd-mock-transport.h"

/* a state that counts its own destruction */
typedef struct {
	guint *destroyed;
	ErpcConnection *connection;
} TestState;

static TestState *
test_state_new(guint *destroyed, ErpcConnection *connection)
{
	TestState *state = g_new0(TestState, 1);
	state->destroyed = destroyed;
	state->connection = connection;
	return state;
}

static void
test_state_free(gpointer data)
{
	TestState *state = data;
	(*state->destroyed)++;
	g_free(state);
}

static ErpcConnection *
test_connection_new(EsdMockTransport **transport)
{
	*transport = esd_mock_transport_new();
	return erpc_connection_new(ERPC_TRANSPORT(*transport), 1024, ERPC_JSON_MAX_DEPTH);
}

/* two plugins keyed by their own addresses: each reads and replaces only its own slot */
static void
test_connection_slots_separate(void)
{
	static const gchar plugin_a = 'a';
	static const gchar plugin_b = 'b';
	g_autoptr(EsdMockTransport) transport = NULL;
	g_autoptr(ErpcConnection) connection = test_connection_new(&transport);
	guint destroyed_a = 0;
	guint destroyed_b = 0;
	TestState *a = test_state_new(&destroyed_a, connection);
	TestState *b = test_state_new(&destroyed_b, connection);
	TestState *a2 = test_state_new(&destroyed_a, connection);

	g_assert_null(erpc_connection_get_plugin_state(connection, &plugin_a));
	erpc_connection_set_plugin_state(connection, &plugin_a, a, test_state_free);
	erpc_connection_set_plugin_state(connection, &plugin_b, b, test_state_free);
	g_assert_true(erpc_connection_get_plugin_state(connection, &plugin_a) == a);
	g_assert_true(erpc_connection_get_plugin_state(connection, &plugin_b) == b);

	/* a replaced state is destroyed, the neighbour's is untouched */
	erpc_connection_set_plugin_state(connection, &plugin_a, a2, test_state_free);
	g_assert_cmpuint(destroyed_a, ==, 1);
	g_assert_cmpuint(destroyed_b, ==, 0);
	g_assert_true(erpc_connection_get_plugin_state(connection, &plugin_a) == a2);
	g_assert_true(erpc_connection_get_plugin_state(connection, &plugin_b) == b);

	/* NULL empties a slot */
	erpc_connection_set_plugin_state(connection, &plugin_b, NULL, NULL);
	g_assert_cmpuint(destroyed_b, ==, 1);
	g_assert_null(erpc_connection_get_plugin_state(connection, &plugin_b));
	g_assert_true(erpc_connection_get_plugin_state(connection, &plugin_a) == a2);

	/* a type is a key too */
	erpc_connection_set_plugin_state(connection,
					 GSIZE_TO_POINTER(ERPC_TYPE_CONNECTION),
					 GINT_TO_POINTER(7),
					 NULL);
	g_assert_cmpint(GPOINTER_TO_INT(erpc_connection_get_plugin_state(
			    connection,
			    GSIZE_TO_POINTER(ERPC_TYPE_CONNECTION))),
			==,
			7);
	g_assert_true(erpc_connection_get_plugin_state(connection, &plugin_a) == a2);
}

static void
test_closed_cb(ErpcConnection *connection, gpointer key)
{
	/* a plugin's connection_closed runs from ::closed: its state is still there */
	g_assert_nonnull(erpc_connection_get_plugin_state(connection, key));
}

/* the slots go right after ::closed, not with the last reference */
static void
test_connection_slots_closed(void)
{
	static const gchar plugin = 'p';
	g_autoptr(EsdMockTransport) transport = NULL;
	g_autoptr(ErpcConnection) connection = test_connection_new(&transport);
	guint destroyed = 0;
	guint destroyed_late = 0;

	erpc_connection_set_plugin_state(connection,
					 &plugin,
					 test_state_new(&destroyed, connection),
					 test_state_free);
	g_signal_connect(connection, "closed", G_CALLBACK(test_closed_cb), (gpointer)&plugin);
	erpc_transport_emit_closed(ERPC_TRANSPORT(transport), NULL);
	g_assert_true(erpc_connection_is_closed(connection));
	g_assert_cmpuint(destroyed, ==, 1);
	g_assert_null(erpc_connection_get_plugin_state(connection, &plugin));

	/* set after the close: kept until the connection goes */
	erpc_connection_set_plugin_state(connection,
					 &plugin,
					 test_state_new(&destroyed_late, connection),
					 test_state_free);
	g_assert_nonnull(erpc_connection_get_plugin_state(connection, &plugin));
	g_clear_object(&connection);
	g_assert_cmpuint(destroyed_late, ==, 1);
	g_assert_cmpuint(destroyed, ==, 1);
}

/* never closed: the slots go with the connection */
static void
test_connection_slots_dispose(void)
{
	static const gchar plugin = 'p';
	g_autoptr(EsdMockTransport) transport = NULL;
	ErpcConnection *connection = test_connection_new(&transport);
	guint destroyed = 0;

	erpc_connection_set_plugin_state(connection,
					 &plugin,
					 test_state_new(&destroyed, connection),
					 test_state_free);
	g_object_unref(connection);
	g_assert_cmpuint(destroyed, ==, 1);
}

/* what a connection made of one message: its params, or why it refused it */
static void
test_plain_message_cb(ErpcConnection *connection, ErpcMessage *message, gchar **outcome)
{
	JsonNode *params;

	erpc_message_expand(message);
	params = erpc_message_get_params(message);
	g_free(*outcome);
	*outcome = params != NULL ? json_to_string(params, FALSE) : g_strdup("no params");
}

static void
test_plain_malformed_cb(ErpcConnection *connection, const GError *error, gchar **outcome)
{
	g_free(*outcome);
	*outcome = g_strdup_printf("refused: %s", error->message);
}

static gchar *
test_plain_deliver(const GString *doc, gboolean mapped, gboolean broken)
{
	g_autoptr(EsdMockTransport) transport = esd_mock_transport_new();
	g_autoptr(ErpcConnection) connection =
	    erpc_connection_new(ERPC_TRANSPORT(transport), 4 * 1024 * 1024, ERPC_JSON_MAX_DEPTH);
	g_autoptr(ErpcJsonPlainMap) plain = erpc_json_plain_map_new();
	g_autoptr(GBytes) bytes = g_bytes_new(doc->str, doc->len);
	gchar *outcome = NULL;

	g_signal_connect(connection, "message", G_CALLBACK(test_plain_message_cb), &outcome);
	g_signal_connect(connection, "malformed", G_CALLBACK(test_plain_malformed_cb), &outcome);
	/* in uneven pieces, as reads deliver them */
	for (gsize done = 0, piece = 1; done < doc->len; piece = piece * 3 + 7) {
		gsize n = MIN(piece, doc->len - done);
		erpc_json_plain_map_add(plain, done, doc->str + done, n);
		done += n;
	}
	if (broken)
		erpc_json_plain_map_add(plain, 0, doc->str, 1);
	if (mapped)
		erpc_transport_emit_message_bytes_mapped(ERPC_TRANSPORT(transport), bytes, plain);
	else
		erpc_transport_emit_message_bytes(ERPC_TRANSPORT(transport), bytes);
	g_assert_nonnull(outcome);
	return outcome;
}

/* a message parses the same with the map of its plain blocks as without */
static void
test_connection_plain_map(void)
{
	/* around block boundaries (64 KiB), inside and outside the long string */
	const gsize places[] = {5, 65535, 65536, 65537, 131071, 200000, 299999};
	const gchar *specials[] = {"\\n", "\\u00e9", "\xc3\xa9", "\001", "\"", "\\", "\xff"};

	for (guint p = 0; p < G_N_ELEMENTS(places); p++) {
		for (guint k = 0; k < G_N_ELEMENTS(specials); k++) {
			g_autoptr(GString) doc = g_string_new(
			    "{\"id\":1,\"method\":\"fs/writeFile\",\"params\":{\"d\":\"");
			gsize start = doc->len;
			g_autofree gchar *plain = NULL;
			g_autofree gchar *mapped = NULL;
			g_autofree gchar *broken = NULL;

			for (gsize i = 0; i < 300000; i++)
				g_string_append_c(doc, (gchar)('A' + i % 26));
			g_string_append(doc, "\"}}");
			g_string_erase(doc, (gssize)(start + places[p]), 1);
			g_string_insert(doc, (gssize)(start + places[p]), specials[k]);
			plain = test_plain_deliver(doc, FALSE, FALSE);
			mapped = test_plain_deliver(doc, TRUE, FALSE);
			broken = test_plain_deliver(doc, TRUE, TRUE);
			g_assert_cmpstr(mapped, ==, plain);
			g_assert_cmpstr(broken, ==, plain);
		}
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/execserverd/libexecrpc/connection/plain-map", test_connection_plain_map);
	g_test_add_func("/execserverd/libexecrpc/connection/plugin-state/separate",
			test_connection_slots_separate);
	g_test_add_func("/execserverd/libexecrpc/connection/plugin-state/closed",
			test_connection_slots_closed);
	g_test_add_func("/execserverd/libexecrpc/connection/plugin-state/dispose",
			test_connection_slots_dispose);
	return g_test_run();
}
