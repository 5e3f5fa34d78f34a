/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <string.h>

#include "erpc-test-client.h"
#include "erpc-test-executor.h"
#include "erpc-test-ws-proxy.h"

/*
 * Capability discovery on the client, against a scripted executor: the
 * capabilityDiscoverySandbox rule, the cache keyed by environment, roots
 * and sandbox, and its recoveries (a drop during the call, a session the
 * executor no longer knows, an environment that comes back, a network path
 * that is refused and then allowed), as Codex's environment-manager tests;
 * and the real daemon behind a WebSocket proxy that rewrites its
 * capabilities and drops the connection on a discovery.
 */

/* reads everything: the root special path */
static const gchar *full_read_sandbox =
    "{\"permissions\":{\"type\":\"managed\",\"network\":\"restricted\","
    "\"file_system\":{\"type\":\"restricted\",\"entries\":[{\"path\":{\"type\":\"special\","
    "\"value\":{\"kind\":\"root\"}},\"access\":\"read\"}]}},"
    "\"windowsSandboxLevel\":\"disabled\",\"cwd\":\"file:///tmp\"}";
static const gchar *disabled_sandbox =
    "{\"permissions\":{\"type\":\"disabled\"},\"windowsSandboxLevel\":\"disabled\"}";
/* reads only /tmp */
static const gchar *restricted_sandbox =
    "{\"permissions\":{\"type\":\"managed\",\"network\":\"restricted\","
    "\"file_system\":{\"type\":\"restricted\",\"entries\":[{\"path\":{\"type\":\"path\","
    "\"path\":\"file:///tmp\"},\"access\":\"read\"}]}},"
    "\"windowsSandboxLevel\":\"disabled\",\"cwd\":\"file:///tmp\"}";
/* reads everything but a secret */
static const gchar *deny_sandbox =
    "{\"permissions\":{\"type\":\"managed\",\"network\":\"restricted\","
    "\"file_system\":{\"type\":\"restricted\",\"entries\":[{\"path\":{\"type\":\"special\","
    "\"value\":{\"kind\":\"root\"}},\"access\":\"read\"},{\"path\":{\"type\":\"path\","
    "\"path\":\"file:///tmp/secret\"},\"access\":\"deny\"}]}},"
    "\"windowsSandboxLevel\":\"disabled\"}";

static JsonObject *
object_new(const gchar *json)
{
	g_autoptr(JsonNode) node = json_from_string(json, NULL);
	g_assert_nonnull(node);
	return json_object_ref(json_node_get_object(node));
}

static void
test_reads_everything(void)
{
	g_autoptr(JsonObject) full = object_new(full_read_sandbox);
	g_autoptr(JsonObject) disabled = object_new(disabled_sandbox);
	g_autoptr(JsonObject) restricted = object_new(restricted_sandbox);
	g_autoptr(JsonObject) deny = object_new(deny_sandbox);
	g_autoptr(JsonObject) unrestricted =
	    object_new("{\"permissions\":{\"type\":\"managed\",\"network\":\"enabled\","
		       "\"file_system\":{\"type\":\"unrestricted\"}}}");
	g_autoptr(JsonObject) external =
	    object_new("{\"permissions\":{\"type\":\"external\",\"network\":\"enabled\"}}");
	g_autoptr(JsonObject) odd = object_new("{\"permissions\":{\"type\":\"future\"}}");

	g_assert_true(erpc_sandbox_context_reads_everything(NULL));
	g_assert_true(erpc_sandbox_context_reads_everything(full));
	g_assert_true(erpc_sandbox_context_reads_everything(disabled));
	g_assert_true(erpc_sandbox_context_reads_everything(unrestricted));
	g_assert_true(erpc_sandbox_context_reads_everything(external));
	g_assert_false(erpc_sandbox_context_reads_everything(restricted));
	g_assert_false(erpc_sandbox_context_reads_everything(deny));
	g_assert_false(erpc_sandbox_context_reads_everything(odd));
}

static ErpcClient *
connect_to(ErpcTestExecutor *executor)
{
	g_autofree gchar *url = erpc_test_executor_get_url(executor);
	ErpcClient *client = erpc_client_new(url);

	erpc_test_connect(client);
	return client;
}

static JsonArray *
discover(ErpcClient *client, const gchar *sandbox_json, GError **error)
{
	const gchar *ids[] = {"root", NULL};
	const gchar *paths[] = {"/tmp", NULL};
	g_autoptr(JsonObject) sandbox = sandbox_json != NULL ? object_new(sandbox_json) : NULL;
	g_autoptr(GAsyncResult) res = NULL;
	GAsyncResult *slot = NULL;

	erpc_client_discover_capability_roots_sandboxed_async(client,
							      ids,
							      paths,
							      sandbox,
							      NULL,
							      erpc_test_result_cb,
							      &slot);
	res = erpc_test_wait(&slot);
	return erpc_client_discover_capability_roots_finish(client, res, error);
}

static gboolean
sent_sandbox_is(ErpcTestExecutor *executor, const gchar *sandbox_json)
{
	JsonArray *roots = json_object_get_array_member(executor->last_params, "roots");
	JsonObject *root = json_array_get_object_element(roots, 0);
	g_autoptr(JsonNode) expected = json_from_string(sandbox_json, NULL);

	return json_object_has_member(root, "sandbox") &&
	       json_node_equal(json_object_get_member(root, "sandbox"), expected);
}

/* an executor without capabilityDiscoverySandbox gets full-disk reads only */
static void
test_sandbox_rule(void)
{
	g_autoptr(ErpcTestExecutor) executor = erpc_test_executor_new();
	g_autoptr(ErpcClient) client = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) roots = NULL;
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(JsonObject) result = NULL;
	GAsyncResult *slot = NULL;

	executor->sandbox_capability = FALSE;
	executor->v2_capability = FALSE;
	client = connect_to(executor);

	roots = discover(client, full_read_sandbox, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(json_array_get_length(roots), ==, 1);
	g_assert_true(sent_sandbox_is(executor, full_read_sandbox));
	g_clear_pointer(&roots, json_array_unref);
	roots = discover(client, disabled_sandbox, &error);
	g_assert_no_error(error);
	g_assert_true(sent_sandbox_is(executor, disabled_sandbox));
	g_assert_cmpuint(executor->discovers, ==, 2);

	/* restricted reads must not fall back to a discovery that ignores them */
	g_clear_pointer(&roots, json_array_unref);
	roots = discover(client, restricted_sandbox, &error);
	g_assert_null(roots);
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
	g_assert_cmpstr(error->message,
			==,
			"exec-server does not support sandboxed capability discovery");
	g_clear_error(&error);
	roots = discover(client, deny_sandbox, &error);
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
	g_clear_error(&error);
	g_assert_cmpuint(executor->discovers, ==, 2);

	erpc_client_discover_capabilities_sandboxed_async(client,
							  "/tmp",
							  NULL,
							  NULL,
							  erpc_test_result_cb,
							  &slot);
	res = erpc_test_wait(&slot);
	result = erpc_client_discover_capabilities_finish(client, res, &error);
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
	g_assert_cmpuint(executor->discovers, ==, 2);
	g_clear_error(&error);
	g_clear_object(&res);
	g_clear_object(&client);

	/* with the capability, restricted reads are sent as they are */
	executor->sandbox_capability = TRUE;
	executor->v2_capability = TRUE;
	client = connect_to(executor);
	roots = discover(client, restricted_sandbox, &error);
	g_assert_no_error(error);
	g_assert_true(sent_sandbox_is(executor, restricted_sandbox));
	{
		g_autoptr(JsonObject) strict = object_new(restricted_sandbox);
		erpc_client_discover_capabilities_sandboxed_async(client,
								  "/tmp",
								  strict,
								  NULL,
								  erpc_test_result_cb,
								  &slot);
	}
	res = erpc_test_wait(&slot);
	result = erpc_client_discover_capabilities_finish(client, res, &error);
	g_assert_no_error(error);
	g_assert_true(json_object_has_member(executor->last_params, "sandbox"));
	g_assert_cmpstr(json_object_get_string_member(executor->last_params, "cwd"),
			==,
			"file:///tmp");
}

static gboolean
sent_by_proxy_is(ErpcTestWsProxy *proxy, const gchar *sandbox_json)
{
	JsonArray *roots = json_object_get_array_member(proxy->last_params, "roots");
	JsonObject *root = json_array_get_object_element(roots, 0);
	g_autoptr(JsonNode) expected = json_from_string(sandbox_json, NULL);

	return json_object_has_member(root, "sandbox") &&
	       json_node_equal(json_object_get_member(root, "sandbox"), expected);
}

/* the real daemon behind a proxy that says it lacks capabilityDiscoverySandbox,
 * as Codex's test: full-disk reads go through unchanged, restricted reads
 * never leave the client */
static void
test_proxy_sandbox_rule(void)
{
	g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_ws(NULL);
	g_autoptr(ErpcTestWsProxy) proxy = erpc_test_ws_proxy_new(esd_test_daemon_get_url(daemon));
	g_autofree gchar *url = NULL;
	g_autoptr(ErpcClient) client = NULL;
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(JsonObject) info = NULL;
	g_autoptr(JsonArray) roots = NULL;
	g_autoptr(GError) error = NULL;
	GAsyncResult *slot = NULL;
	gboolean value = TRUE;

	erpc_test_ws_proxy_rewrite(proxy, "capabilityDiscoverySandbox", FALSE);
	url = erpc_test_ws_proxy_get_url(proxy);
	client = erpc_client_new(url);
	erpc_test_connect(client);
	g_assert_true(erpc_json_get_boolean(
	    json_object_get_object_member(erpc_client_get_environment_info(client), "capabilities"),
	    "capabilityDiscoverySandbox",
	    TRUE,
	    &value,
	    NULL));
	g_assert_false(value);
	erpc_client_get_info_async(client, NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	info = erpc_client_get_info_finish(client, res, &error);
	g_assert_no_error(error);
	g_assert_false(
	    json_object_get_boolean_member(json_object_get_object_member(info, "capabilities"),
					   "capabilityDiscoverySandbox"));

	/* whatever the daemon answers, the request went out as it was */
	roots = discover(client, full_read_sandbox, NULL);
	g_assert_cmpuint(proxy->discovers, ==, 1);
	g_assert_true(sent_by_proxy_is(proxy, full_read_sandbox));
	g_clear_pointer(&roots, json_array_unref);
	roots = discover(client, restricted_sandbox, &error);
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
	g_assert_cmpuint(proxy->discovers, ==, 1);
}

/* the proxy drops the connection when discovery reaches it: the client
 * resumes its session with the real daemon and the call reaches it again */
static void
test_proxy_drop(void)
{
	g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_ws(NULL);
	g_autoptr(ErpcTestWsProxy) proxy = erpc_test_ws_proxy_new(esd_test_daemon_get_url(daemon));
	g_autofree gchar *url = erpc_test_ws_proxy_get_url(proxy);
	g_autoptr(ErpcClient) client = erpc_client_new(url);
	g_autoptr(JsonArray) roots = NULL;
	g_autofree gchar *session = NULL;

	erpc_test_connect(client);
	session = g_strdup(erpc_client_get_session_id(client));
	proxy->drop_discovers = 1;
	roots = discover(client, NULL, NULL);
	g_assert_cmpuint(proxy->discovers, ==, 2);
	g_assert_cmpuint(proxy->connections, ==, 2);
	g_assert_cmpstr(erpc_client_get_session_id(client), ==, session);
	g_assert_cmpint(erpc_client_get_state(client), ==, ERPC_CLIENT_STATE_READY);
}

typedef struct {
	ErpcTestExecutor *executor;
	ErpcEnvironmentManager *manager;
	ErpcDiscoveryCache *cache;
} Fixture;

static GVariant *
options_new(const gchar *url)
{
	g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&builder, "{sv}", "url", g_variant_new_string(url));
	g_variant_builder_add(&builder, "{sv}", "connect-timeout", g_variant_new_uint32(2));
	g_variant_builder_add(&builder, "{sv}", "recovery-timeout", g_variant_new_uint32(5));
	return g_variant_builder_end(&builder);
}

static void
fixture_setup(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *url = NULL;

	fx->executor = erpc_test_executor_new();
	url = erpc_test_executor_get_url(fx->executor);
	fx->manager = erpc_environment_manager_new();
	g_assert_true(erpc_environment_manager_upsert(fx->manager, "a", options_new(url), NULL));
	g_assert_true(erpc_environment_manager_upsert(fx->manager, "b", options_new(url), NULL));
	fx->cache = erpc_discovery_cache_new(fx->manager);
}

static void
fixture_teardown(Fixture *fx, gconstpointer user_data)
{
	g_clear_object(&fx->cache);
	g_clear_object(&fx->manager);
	erpc_test_executor_free(fx->executor);
}

/* [{id, environmentId, path}] from "env:id:path" */
static JsonArray *
roots_new(const gchar *const *specs)
{
	JsonArray *roots = json_array_new();

	for (guint i = 0; specs[i] != NULL; i++) {
		g_auto(GStrv) parts = g_strsplit(specs[i], ":", 3);
		JsonObject *root = json_object_new();
		json_object_set_string_member(root, "environmentId", parts[0]);
		json_object_set_string_member(root, "id", parts[1]);
		json_object_set_string_member(root, "path", parts[2]);
		json_array_add_object_element(roots, root);
	}
	return roots;
}

static JsonArray *
snapshot(Fixture *fx, const gchar *const *specs, const gchar *sandbox_a)
{
	g_autoptr(JsonArray) roots = roots_new(specs);
	g_autoptr(JsonObject) sandboxes = json_object_new();
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	GAsyncResult *slot = NULL;
	JsonArray *result;

	if (sandbox_a != NULL)
		json_object_set_object_member(sandboxes, "a", object_new(sandbox_a));
	erpc_discovery_cache_snapshot_async(fx->cache,
					    roots,
					    sandboxes,
					    NULL,
					    erpc_test_result_cb,
					    &slot);
	res = erpc_test_wait(&slot);
	result = erpc_discovery_cache_snapshot_finish(fx->cache, res, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(json_array_get_length(result), ==, g_strv_length((gchar **)specs));
	return result;
}

static const gchar *
result_error(JsonArray *results, guint i)
{
	JsonObject *result = json_array_get_object_element(results, i);
	return json_object_get_string_member_with_default(result, "error", NULL);
}

static gboolean
result_ok(JsonArray *results, guint i, const gchar *id)
{
	JsonObject *result = json_array_get_object_element(results, i);
	JsonObject *discovery = NULL;

	if (!json_object_has_member(result, "discovery"))
		return FALSE;
	discovery = json_object_get_object_member(result, "discovery");
	return g_strcmp0(json_object_get_string_member(discovery, "id"), id) == 0 &&
	       g_strcmp0(json_object_get_string_member(result, "id"), id) == 0;
}

/* one call per environment batch; then the same roots come from the cache,
 * unless the environment or the sandbox differ */
static void
test_cache_key(Fixture *fx, gconstpointer user_data)
{
	const gchar *two[] = {"a:r1:/tmp/r1", "a:r2:/tmp/r2", NULL};
	const gchar *again[] = {"a:r2:/tmp/r2", "a:r1:/tmp/r1", "a:r1:/tmp/r1", NULL};
	const gchar *other_env[] = {"b:r1:/tmp/r1", NULL};
	const gchar *other_path[] = {"a:r1:/tmp/elsewhere", NULL};
	g_autoptr(JsonArray) first = snapshot(fx, two, NULL);
	g_autoptr(JsonArray) second = NULL;
	g_autoptr(JsonArray) third = NULL;
	g_autoptr(JsonArray) fourth = NULL;
	g_autoptr(JsonArray) fifth = NULL;

	g_assert_true(result_ok(first, 0, "r1"));
	g_assert_true(result_ok(first, 1, "r2"));
	g_assert_cmpuint(fx->executor->discovers, ==, 1);
	g_assert_cmpuint(
	    json_array_get_length(json_object_get_array_member(fx->executor->last_params, "roots")),
	    ==,
	    2);

	second = snapshot(fx, again, NULL);
	g_assert_true(result_ok(second, 0, "r2"));
	g_assert_true(result_ok(second, 2, "r1"));
	g_assert_cmpuint(fx->executor->discovers, ==, 1);

	third = snapshot(fx, other_env, NULL);
	g_assert_true(result_ok(third, 0, "r1"));
	g_assert_cmpuint(fx->executor->discovers, ==, 2);
	fourth = snapshot(fx, two, full_read_sandbox);
	g_assert_cmpuint(fx->executor->discovers, ==, 3);
	g_assert_true(sent_sandbox_is(fx->executor, full_read_sandbox));
	fifth = snapshot(fx, other_path, full_read_sandbox);
	g_assert_cmpuint(fx->executor->discovers, ==, 4);
	g_assert_false(erpc_discovery_cache_take_recovered(fx->cache));
}

/* an answer that does not match is a permanent failure: cached, not retried */
static void
test_mismatch(Fixture *fx, gconstpointer user_data)
{
	const gchar *one[] = {"a:r1:/tmp/r1", NULL};
	g_autoptr(JsonArray) first = NULL;
	g_autoptr(JsonArray) second = NULL;
	g_autoptr(JsonArray) third = NULL;
	g_autofree gchar *url = NULL;

	fx->executor->mismatch = TRUE;
	first = snapshot(fx, one, NULL);
	g_assert_nonnull(strstr(result_error(first, 0), "mismatched capability root `other`"));
	fx->executor->mismatch = FALSE;
	second = snapshot(fx, one, NULL);
	g_assert_nonnull(result_error(second, 0));
	g_assert_cmpuint(fx->executor->discovers, ==, 1);

	/* a cached result belongs to its handle: a replaced environment is asked again */
	url = erpc_test_executor_get_url(fx->executor);
	g_assert_true(erpc_environment_manager_upsert(fx->manager, "a", options_new(url), NULL));
	third = snapshot(fx, one, NULL);
	g_assert_true(result_ok(third, 0, "r1"));
	g_assert_cmpuint(fx->executor->discovers, ==, 2);
	/* a permanent failure that went away is a recovery too */
	g_assert_true(erpc_discovery_cache_take_recovered(fx->cache));
}

/* the executor drops the connection during the call: the session resumes
 * and the call is sent again, within the same snapshot */
static void
test_retry_drop(Fixture *fx, gconstpointer user_data)
{
	const gchar *one[] = {"a:recovering:/tmp/r", NULL};
	g_autoptr(JsonArray) result = NULL;

	fx->executor->drop_discovers = 1;
	result = snapshot(fx, one, NULL);
	g_assert_true(result_ok(result, 0, "recovering"));
	g_assert_cmpuint(fx->executor->discovers, ==, 2);
	g_assert_cmpuint(fx->executor->resumes, ==, 1);
}

/* the executor forgot the session: recovery fails, the snapshot waits for a
 * new connection and asks again */
static void
test_retry_new_session(Fixture *fx, gconstpointer user_data)
{
	const gchar *one[] = {"a:recovering:/tmp/r", NULL};
	g_autoptr(JsonArray) result = NULL;

	fx->executor->drop_discovers = 1;
	fx->executor->refuse_resume = TRUE;
	result = snapshot(fx, one, NULL);
	g_assert_true(result_ok(result, 0, "recovering"));
	g_assert_cmpuint(fx->executor->discovers, ==, 2);
	/* the first session, the refused resume, a new session */
	g_assert_cmpuint(fx->executor->initializes, ==, 3);
	g_assert_false(erpc_discovery_cache_take_recovered(fx->cache));
}

/* an environment that could not be reached is an error in its snapshot; once
 * the environment is replaced by one that works, the newer handle's snapshot
 * succeeds and reports the recovery, and the old snapshot stays an error */
static void
test_retry_reconnect(Fixture *fx, gconstpointer user_data)
{
	const gchar *one[] = {"down:skill:/tmp/skill", NULL};
	g_autoptr(GSocketListener) listener = g_socket_listener_new();
	g_autoptr(GError) error = NULL;
	g_autofree gchar *refused = NULL;
	g_autofree gchar *url = erpc_test_executor_get_url(fx->executor);
	g_autoptr(JsonArray) failed = NULL;
	g_autoptr(JsonArray) recovered = NULL;
	g_autoptr(ErpcClient) old_handle = NULL;
	guint16 port = g_socket_listener_add_any_inet_port(listener, NULL, &error);

	g_assert_no_error(error);
	g_socket_listener_close(listener);
	refused = g_strdup_printf("ws://127.0.0.1:%u", port);
	g_assert_true(
	    erpc_environment_manager_upsert(fx->manager, "down", options_new(refused), NULL));
	failed = snapshot(fx, one, NULL);
	g_assert_nonnull(result_error(failed, 0));
	g_assert_nonnull(strstr(result_error(failed, 0), "environment `down` is unavailable"));
	g_assert_false(erpc_discovery_cache_take_recovered(fx->cache));
	old_handle =
	    g_object_ref(erpc_environment_manager_get_environment(fx->manager, "down", NULL));

	g_assert_true(erpc_environment_manager_upsert(fx->manager, "down", options_new(url), NULL));
	recovered = snapshot(fx, one, NULL);
	g_assert_true(result_ok(recovered, 0, "skill"));
	g_assert_true(erpc_discovery_cache_take_recovered(fx->cache));
	g_assert_false(erpc_discovery_cache_take_recovered(fx->cache));
	/* never silently replaced */
	g_assert_nonnull(result_error(failed, 0));
	g_assert_true(old_handle !=
		      erpc_environment_manager_get_environment(fx->manager, "down", NULL));
	g_assert_cmpint(erpc_client_get_state(old_handle), ==, ERPC_CLIENT_STATE_DISCONNECTED);
}

/* the network path is refused, then allowed: the next snapshot succeeds */
static void
test_retry_network(Fixture *fx, gconstpointer user_data)
{
	const gchar *one[] = {"via:skill:/tmp/skill", NULL};
	g_autoptr(ErpcTestProxy) proxy = erpc_test_proxy_new(fx->executor->port, FALSE);
	g_autofree gchar *url = erpc_test_proxy_get_url(proxy);
	g_autoptr(JsonArray) failed = NULL;
	g_autoptr(JsonArray) recovered = NULL;
	g_autoptr(JsonArray) cached = NULL;

	g_assert_true(erpc_environment_manager_upsert(fx->manager, "via", options_new(url), NULL));
	erpc_test_proxy_refuse(proxy, TRUE);
	failed = snapshot(fx, one, NULL);
	g_assert_nonnull(result_error(failed, 0));
	g_assert_cmpuint(fx->executor->discovers, ==, 0);
	erpc_test_proxy_refuse(proxy, FALSE);
	recovered = snapshot(fx, one, NULL);
	g_assert_true(result_ok(recovered, 0, "skill"));
	g_assert_true(erpc_discovery_cache_take_recovered(fx->cache));
	cached = snapshot(fx, one, NULL);
	g_assert_true(result_ok(cached, 0, "skill"));
	g_assert_cmpuint(fx->executor->discovers, ==, 1);
	g_assert_false(erpc_discovery_cache_take_recovered(fx->cache));
}

/* the application's network policy (its HTTP proxy) refuses the executor,
 * then lets it through: the next snapshot goes through the proxy and works */
static void
test_retry_proxy_policy(Fixture *fx, gconstpointer user_data)
{
	const gchar *one[] = {"a:skill:/tmp/skill", NULL};
	g_autoptr(ErpcTestProxy) proxy = erpc_test_proxy_new(0, TRUE);
	g_autofree gchar *proxy_url =
	    g_strdup_printf("http://127.0.0.1:%u", erpc_test_proxy_get_port(proxy));
	g_autoptr(GProxyResolver) resolver = g_simple_proxy_resolver_new(proxy_url, NULL);
	g_autofree gchar *target = g_strdup_printf("127.0.0.1:%u", fx->executor->port);
	g_autoptr(JsonArray) failed = NULL;
	g_autoptr(JsonArray) recovered = NULL;
	ErpcClient *client = erpc_environment_manager_get_environment(fx->manager, "a", NULL);

	erpc_client_set_proxy_resolver(client, resolver);
	erpc_test_proxy_refuse(proxy, TRUE);
	failed = snapshot(fx, one, NULL);
	g_assert_nonnull(result_error(failed, 0));
	g_assert_cmpuint(fx->executor->connections, ==, 0);
	erpc_test_proxy_refuse(proxy, FALSE);
	recovered = snapshot(fx, one, NULL);
	g_assert_true(result_ok(recovered, 0, "skill"));
	g_assert_cmpstr(erpc_test_proxy_get_connect_target(proxy), ==, target);
	g_assert_true(erpc_discovery_cache_take_recovered(fx->cache));
	/* the failed snapshot is still the failure it was */
	g_assert_nonnull(result_error(failed, 0));
}

int
main(int argc, char **argv)
{
	erpc_test_init(&argc, &argv);
	g_test_add_func("/execserverd/client-discovery/reads-everything", test_reads_everything);
	g_test_add_func("/execserverd/client-discovery/sandbox-rule", test_sandbox_rule);
	g_test_add_func("/execserverd/client-discovery/proxy-sandbox-rule",
			test_proxy_sandbox_rule);
	g_test_add_func("/execserverd/client-discovery/proxy-drop", test_proxy_drop);
#define ADD(name, func) g_test_add(name, Fixture, NULL, fixture_setup, func, fixture_teardown)
	ADD("/execserverd/client-discovery/cache-key", test_cache_key);
	ADD("/execserverd/client-discovery/mismatch", test_mismatch);
	ADD("/execserverd/client-discovery/retry-drop", test_retry_drop);
	ADD("/execserverd/client-discovery/retry-new-session", test_retry_new_session);
	ADD("/execserverd/client-discovery/retry-reconnect", test_retry_reconnect);
	ADD("/execserverd/client-discovery/retry-network", test_retry_network);
	ADD("/execserverd/client-discovery/retry-proxy-policy", test_retry_proxy_policy);
#undef ADD
	return g_test_run();
}
