/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "erpc-client-services.h"
#include "erpc-discovery-cache.h"
#include "erpc-error.h"
#include "erpc-json.h"
#include "erpc-uri.h"

/**
 * ErpcDiscoveryCache:
 *
 * Capability roots discovered once per environment, root and sandbox, as
 * Codex's `ExecutorCapabilityDiscoveryCache`: one snapshot batches every
 * missing root of an environment into one `capabilityRoots/discoverV1`.
 *
 * Successes and permanent failures (the executor answered with an error,
 * or with roots that do not match the request) stay cached; failures of
 * the connection (an unknown or unreachable environment, a connection
 * lost) are tried again by the next snapshot, and a success after such a
 * failure is reported once by erpc_discovery_cache_take_recovered(). A
 * cached result belongs to the environment's client it came from: when
 * the environment is replaced, its roots are discovered again from the
 * new one. A snapshot, once returned, never changes.
 *
 * Within one snapshot, a discovery that fails because the executor
 * disconnected waits (up to 8 s, as Codex) for the environment to be ready
 * again and is sent once more.
 *
 * Since: 0.2
 */

#define ERPC_DISCOVERY_RECOVERY_WAIT_MS 8000

struct _ErpcDiscoveryCache {
	GObject parent_instance;
	ErpcEnvironmentManager *manager;
	GHashTable *entries; /* key → ErpcDiscoveryEntry */
	gboolean recovered;
};

G_DEFINE_TYPE(ErpcDiscoveryCache, erpc_discovery_cache, G_TYPE_OBJECT)

typedef struct {
	ErpcClient *client; /* the handle it came from; NULL if there was none */
	JsonObject *discovery;
	gchar *error;
	gboolean retryable;
} ErpcDiscoveryEntry;

static void
erpc_discovery_entry_free(ErpcDiscoveryEntry *entry)
{
	g_clear_object(&entry->client);
	g_clear_pointer(&entry->discovery, json_object_unref);
	g_free(entry->error);
	g_free(entry);
}

/* one snapshot */
typedef struct {
	JsonArray *roots;
	JsonObject *sandboxes;
	GPtrArray *keys; /* per root */
	guint pending;	 /* environments still being discovered */
} ErpcDiscoverySnapshot;

static void
erpc_discovery_snapshot_free(ErpcDiscoverySnapshot *snapshot)
{
	json_array_unref(snapshot->roots);
	g_clear_pointer(&snapshot->sandboxes, json_object_unref);
	g_ptr_array_unref(snapshot->keys);
	g_free(snapshot);
}

/* the missing roots of one environment */
typedef struct {
	GTask *task; /* the snapshot's */
	gchar *environment_id;
	ErpcClient *client;
	JsonObject *sandbox;
	GPtrArray *ids;
	GPtrArray *paths;
	GPtrArray *keys;
	gboolean retried;
	GCancellable *wait_cancellable;
	guint wait_timeout_id;
} ErpcDiscoveryBatch;

static void
erpc_discovery_batch_free(ErpcDiscoveryBatch *batch)
{
	g_clear_handle_id(&batch->wait_timeout_id, g_source_remove);
	g_clear_object(&batch->wait_cancellable);
	g_object_unref(batch->task);
	g_free(batch->environment_id);
	g_clear_object(&batch->client);
	g_clear_pointer(&batch->sandbox, json_object_unref);
	g_ptr_array_unref(batch->ids);
	g_ptr_array_unref(batch->paths);
	g_ptr_array_unref(batch->keys);
	g_free(batch);
}

static const gchar *
erpc_discovery_member(JsonObject *object, const gchar *member)
{
	JsonNode *node = json_object_get_member(object, member);

	if (node == NULL || !JSON_NODE_HOLDS_VALUE(node) ||
	    json_node_get_value_type(node) != G_TYPE_STRING)
		return NULL;
	return json_node_get_string(node);
}

static JsonObject *
erpc_discovery_sandbox(ErpcDiscoverySnapshot *snapshot, const gchar *environment_id)
{
	JsonNode *node = snapshot->sandboxes != NULL
			     ? json_object_get_member(snapshot->sandboxes, environment_id)
			     : NULL;
	return node != NULL && JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
}

/* environment, root and sandbox */
static gchar *
erpc_discovery_key(const gchar *environment_id,
		   const gchar *id,
		   const gchar *path,
		   JsonObject *sandbox)
{
	g_autofree gchar *text = NULL;

	if (sandbox != NULL) {
		g_autoptr(JsonNode) node = json_node_init_object(json_node_alloc(), sandbox);
		text = json_to_string(node, FALSE);
	}
	return g_strjoin("\n", environment_id, id, path, text != NULL ? text : "", NULL);
}

/* connection failures are worth another try; answers are not */
static gboolean
erpc_discovery_error_is_retryable(const GError *error)
{
	if (error->domain == ERPC_CLIENT_ERROR)
		return error->code == ERPC_CLIENT_ERROR_DISCONNECTED ||
		       error->code == ERPC_CLIENT_ERROR_CONNECTION_LOST ||
		       error->code == ERPC_CLIENT_ERROR_SESSION_LOST ||
		       error->code == ERPC_CLIENT_ERROR_HANDSHAKE;
	if (error->domain == ERPC_ERROR)
		return error->code == ERPC_ERROR_TIMED_OUT;
	if (error->domain == G_IO_ERROR)
		return error->code != G_IO_ERROR_NOT_SUPPORTED &&
		       error->code != G_IO_ERROR_INVALID_ARGUMENT &&
		       error->code != G_IO_ERROR_CANCELLED;
	return TRUE;
}

static void
erpc_discovery_cache_store(ErpcDiscoveryCache *self,
			   const gchar *key,
			   ErpcClient *client,
			   JsonObject *discovery,
			   const gchar *error,
			   gboolean retryable)
{
	ErpcDiscoveryEntry *old = g_hash_table_lookup(self->entries, key);
	ErpcDiscoveryEntry *entry = g_new0(ErpcDiscoveryEntry, 1);

	if (old != NULL && old->error != NULL && discovery != NULL)
		self->recovered = TRUE;
	entry->client = client != NULL ? g_object_ref(client) : NULL;
	entry->discovery = discovery != NULL ? json_object_ref(discovery) : NULL;
	entry->error = g_strdup(error);
	entry->retryable = retryable;
	g_hash_table_replace(self->entries, g_strdup(key), entry);
}

static void
erpc_discovery_batch_fail(ErpcDiscoveryBatch *batch, const GError *error)
{
	ErpcDiscoveryCache *self = g_task_get_source_object(batch->task);
	gboolean retryable = erpc_discovery_error_is_retryable(error);

	for (guint i = 0; i < batch->keys->len; i++)
		erpc_discovery_cache_store(self,
					   g_ptr_array_index(batch->keys, i),
					   batch->client,
					   NULL,
					   error->message,
					   retryable);
}

static void
erpc_discovery_snapshot_return(GTask *task)
{
	ErpcDiscoveryCache *self = g_task_get_source_object(task);
	ErpcDiscoverySnapshot *snapshot = g_task_get_task_data(task);
	g_autoptr(JsonArray) results = json_array_new();

	for (guint i = 0; i < json_array_get_length(snapshot->roots); i++) {
		JsonObject *root = json_array_get_object_element(snapshot->roots, i);
		ErpcDiscoveryEntry *entry =
		    g_hash_table_lookup(self->entries, g_ptr_array_index(snapshot->keys, i));
		JsonObject *result = json_object_new();

		json_object_set_string_member(result, "id", erpc_discovery_member(root, "id"));
		json_object_set_string_member(result,
					      "environmentId",
					      erpc_discovery_member(root, "environmentId"));
		json_object_set_string_member(result, "path", erpc_discovery_member(root, "path"));
		if (entry != NULL && entry->discovery != NULL)
			json_object_set_object_member(result,
						      "discovery",
						      json_object_ref(entry->discovery));
		else
			json_object_set_string_member(
			    result,
			    "error",
			    entry != NULL ? entry->error
					  : "the capability root was not discovered");
		json_array_add_object_element(results, result);
	}
	g_task_return_pointer(task, g_steal_pointer(&results), (GDestroyNotify)json_array_unref);
}

static void
erpc_discovery_batch_done(ErpcDiscoveryBatch *batch)
{
	ErpcDiscoverySnapshot *snapshot = g_task_get_task_data(batch->task);
	g_autoptr(GTask) task = g_object_ref(batch->task);

	erpc_discovery_batch_free(batch);
	if (--snapshot->pending == 0)
		erpc_discovery_snapshot_return(task);
}

static void
erpc_discovery_batch_send(ErpcDiscoveryBatch *batch);

static void
erpc_discovery_batch_ready_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	ErpcDiscoveryBatch *batch = user_data;
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcClient) client =
	    erpc_environment_manager_wait_until_ready_finish(ERPC_ENVIRONMENT_MANAGER(source),
							     res,
							     &error);

	g_clear_handle_id(&batch->wait_timeout_id, g_source_remove);
	if (client == NULL) {
		if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED) && batch->retried) {
			g_clear_error(&error);
			g_set_error(&error,
				    ERPC_ERROR,
				    ERPC_ERROR_TIMED_OUT,
				    "environment `%s` did not recover within %u ms",
				    batch->environment_id,
				    ERPC_DISCOVERY_RECOVERY_WAIT_MS);
		}
		g_prefix_error(&error, "environment `%s` is unavailable: ", batch->environment_id);
		erpc_discovery_batch_fail(batch, error);
		erpc_discovery_batch_done(batch);
		return;
	}
	/* the handle whose results these are */
	g_set_object(&batch->client, client);
	erpc_discovery_batch_send(batch);
}

static gboolean
erpc_discovery_batch_wait_timeout_cb(gpointer user_data)
{
	ErpcDiscoveryBatch *batch = user_data;

	batch->wait_timeout_id = 0;
	g_cancellable_cancel(batch->wait_cancellable);
	return G_SOURCE_REMOVE;
}

static void
erpc_discovery_batch_wait(ErpcDiscoveryBatch *batch, guint timeout_ms)
{
	ErpcDiscoveryCache *self = g_task_get_source_object(batch->task);

	g_clear_object(&batch->wait_cancellable);
	batch->wait_cancellable = g_cancellable_new();
	if (timeout_ms > 0)
		batch->wait_timeout_id =
		    g_timeout_add(timeout_ms, erpc_discovery_batch_wait_timeout_cb, batch);
	erpc_environment_manager_wait_until_ready_async(self->manager,
							batch->environment_id,
							batch->wait_cancellable,
							erpc_discovery_batch_ready_cb,
							batch);
}

static void
erpc_discovery_batch_answer_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	ErpcDiscoveryBatch *batch = user_data;
	ErpcDiscoveryCache *self = g_task_get_source_object(batch->task);
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) roots =
	    erpc_client_discover_capability_roots_finish(ERPC_CLIENT(source), res, &error);

	if (roots == NULL) {
		/* the executor went away during the call: once more, once it is back */
		if (!batch->retried && erpc_discovery_error_is_retryable(error)) {
			g_debug("environment %s: discovery again after recovery: %s",
				batch->environment_id,
				error->message);
			batch->retried = TRUE;
			erpc_discovery_batch_wait(batch, ERPC_DISCOVERY_RECOVERY_WAIT_MS);
			return;
		}
		erpc_discovery_batch_fail(batch, error);
		erpc_discovery_batch_done(batch);
		return;
	}
	if (json_array_get_length(roots) != batch->keys->len) {
		g_autoptr(GError) mismatch =
		    g_error_new(ERPC_CLIENT_ERROR,
				ERPC_CLIENT_ERROR_PROTOCOL,
				"exec-server returned %u capability roots for %u requests",
				json_array_get_length(roots),
				batch->keys->len);
		erpc_discovery_batch_fail(batch, mismatch);
		erpc_discovery_batch_done(batch);
		return;
	}
	for (guint i = 0; i < batch->keys->len; i++) {
		JsonNode *node = json_array_get_element(roots, i);
		JsonObject *discovery =
		    JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
		g_autofree gchar *uri = erpc_path_to_uri(g_ptr_array_index(batch->paths, i));
		const gchar *id = discovery != NULL ? erpc_discovery_member(discovery, "id") : NULL;
		const gchar *path =
		    discovery != NULL ? erpc_discovery_member(discovery, "path") : NULL;
		g_autofree gchar *message = NULL;

		if (g_strcmp0(id, g_ptr_array_index(batch->ids, i)) != 0 ||
		    g_strcmp0(path, uri) != 0)
			message = g_strdup_printf(
			    "exec-server returned mismatched capability root `%s` at %s",
			    id != NULL ? id : "",
			    path != NULL ? path : "");
		erpc_discovery_cache_store(self,
					   g_ptr_array_index(batch->keys, i),
					   batch->client,
					   message == NULL ? discovery : NULL,
					   message,
					   FALSE);
	}
	erpc_discovery_batch_done(batch);
}

static void
erpc_discovery_batch_send(ErpcDiscoveryBatch *batch)
{
	g_ptr_array_add(batch->ids, NULL);
	g_ptr_array_add(batch->paths, NULL);
	erpc_client_discover_capability_roots_sandboxed_async(
	    batch->client,
	    (const gchar *const *)batch->ids->pdata,
	    (const gchar *const *)batch->paths->pdata,
	    batch->sandbox,
	    g_task_get_cancellable(batch->task),
	    erpc_discovery_batch_answer_cb,
	    batch);
	g_ptr_array_remove_index(batch->ids, batch->ids->len - 1);
	g_ptr_array_remove_index(batch->paths, batch->paths->len - 1);
}

static gboolean
erpc_discovery_root_valid(JsonNode *node)
{
	JsonObject *root;

	if (!JSON_NODE_HOLDS_OBJECT(node))
		return FALSE;
	root = json_node_get_object(node);
	return erpc_discovery_member(root, "id") != NULL &&
	       erpc_discovery_member(root, "environmentId") != NULL &&
	       erpc_discovery_member(root, "path") != NULL;
}

/**
 * erpc_discovery_cache_snapshot_async:
 * @self: a #ErpcDiscoveryCache
 * @roots: the selected roots, each an object with `id`, `environmentId`
 *   and `path` (an absolute path on that environment)
 * @sandboxes: (nullable): the FileSystemSandboxContext each environment's
 *   roots are read in, by environment id
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the snapshot
 * @user_data: data for @callback
 *
 * Resolves every root, from the cache or from its environment (which is
 * connected if it is not). A root whose environment cannot be reached is
 * an error in the snapshot, not a failure of the call.
 *
 * Since: 0.2
 */
void
erpc_discovery_cache_snapshot_async(ErpcDiscoveryCache *self,
				    JsonArray *roots,
				    JsonObject *sandboxes,
				    GCancellable *cancellable,
				    GAsyncReadyCallback callback,
				    gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(self, cancellable, callback, user_data);
	g_autoptr(GHashTable) batches = g_hash_table_new(g_str_hash, g_str_equal);
	ErpcDiscoverySnapshot *snapshot;
	GHashTableIter iter;
	gpointer value;

	g_return_if_fail(ERPC_IS_DISCOVERY_CACHE(self));
	g_return_if_fail(roots != NULL);
	g_task_set_source_tag(task, erpc_discovery_cache_snapshot_async);
	for (guint i = 0; i < json_array_get_length(roots); i++) {
		if (!erpc_discovery_root_valid(json_array_get_element(roots, i))) {
			g_task_return_new_error(task,
						G_IO_ERROR,
						G_IO_ERROR_INVALID_ARGUMENT,
						"root %u needs an id, an environmentId and a path",
						i);
			return;
		}
	}
	snapshot = g_new0(ErpcDiscoverySnapshot, 1);
	snapshot->roots = json_array_ref(roots);
	snapshot->sandboxes = sandboxes != NULL ? json_object_ref(sandboxes) : NULL;
	snapshot->keys = g_ptr_array_new_with_free_func(g_free);
	g_task_set_task_data(task, snapshot, (GDestroyNotify)erpc_discovery_snapshot_free);

	for (guint i = 0; i < json_array_get_length(roots); i++) {
		JsonObject *root = json_array_get_object_element(roots, i);
		const gchar *environment_id = erpc_discovery_member(root, "environmentId");
		JsonObject *sandbox = erpc_discovery_sandbox(snapshot, environment_id);
		gchar *key = erpc_discovery_key(environment_id,
						erpc_discovery_member(root, "id"),
						erpc_discovery_member(root, "path"),
						sandbox);
		ErpcDiscoveryEntry *entry = g_hash_table_lookup(self->entries, key);
		ErpcClient *client =
		    erpc_environment_manager_get_environment(self->manager, environment_id, NULL);
		ErpcDiscoveryBatch *batch;

		g_ptr_array_add(snapshot->keys, key);
		if (entry != NULL && !entry->retryable && entry->client == client)
			continue;
		batch = g_hash_table_lookup(batches, environment_id);
		if (batch == NULL) {
			batch = g_new0(ErpcDiscoveryBatch, 1);
			batch->task = g_object_ref(task);
			batch->environment_id = g_strdup(environment_id);
			batch->client = client != NULL ? g_object_ref(client) : NULL;
			batch->sandbox = sandbox != NULL ? json_object_ref(sandbox) : NULL;
			batch->ids = g_ptr_array_new_with_free_func(g_free);
			batch->paths = g_ptr_array_new_with_free_func(g_free);
			batch->keys = g_ptr_array_new_with_free_func(g_free);
			g_hash_table_insert(batches, batch->environment_id, batch);
		}
		/* the same root twice in one snapshot is asked for once */
		if (g_ptr_array_find_with_equal_func(batch->keys, key, g_str_equal, NULL))
			continue;
		g_ptr_array_add(batch->ids, g_strdup(erpc_discovery_member(root, "id")));
		g_ptr_array_add(batch->paths, g_strdup(erpc_discovery_member(root, "path")));
		g_ptr_array_add(batch->keys, g_strdup(key));
	}
	snapshot->pending = g_hash_table_size(batches) + 1;
	g_hash_table_iter_init(&iter, batches);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		erpc_discovery_batch_wait(value, 0);
	/* the one held for the loop above */
	if (--snapshot->pending == 0)
		erpc_discovery_snapshot_return(task);
}

/**
 * erpc_discovery_cache_snapshot_finish:
 * @self: a #ErpcDiscoveryCache
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_discovery_cache_snapshot_async().
 *
 * Returns: (transfer full): one object per root, in order, with `id`,
 *   `environmentId`, `path` and either `discovery` (the root's
 *   `capabilityRoots/discoverV1` result) or `error` (a message); %NULL if
 *   the roots were invalid
 *
 * Since: 0.2
 */
JsonArray *
erpc_discovery_cache_snapshot_finish(ErpcDiscoveryCache *self, GAsyncResult *result, GError **error)
{
	g_return_val_if_fail(ERPC_IS_DISCOVERY_CACHE(self), NULL);
	g_return_val_if_fail(g_task_is_valid(result, self), NULL);
	return g_task_propagate_pointer(G_TASK(result), error);
}

/**
 * erpc_discovery_cache_take_recovered:
 * @self: a #ErpcDiscoveryCache
 *
 * Tells whether a root that had failed was discovered since the last call,
 * so that what was built from the failure (tool lists, say) can be redone.
 *
 * Returns: %TRUE once after a recovery
 *
 * Since: 0.2
 */
gboolean
erpc_discovery_cache_take_recovered(ErpcDiscoveryCache *self)
{
	gboolean recovered;

	g_return_val_if_fail(ERPC_IS_DISCOVERY_CACHE(self), FALSE);
	recovered = self->recovered;
	self->recovered = FALSE;
	return recovered;
}

/**
 * erpc_discovery_cache_new:
 * @manager: the environments the roots are in
 *
 * Makes an empty cache.
 *
 * Returns: (transfer full): a new #ErpcDiscoveryCache
 *
 * Since: 0.2
 */
ErpcDiscoveryCache *
erpc_discovery_cache_new(ErpcEnvironmentManager *manager)
{
	ErpcDiscoveryCache *self;

	g_return_val_if_fail(ERPC_IS_ENVIRONMENT_MANAGER(manager), NULL);
	self = g_object_new(ERPC_TYPE_DISCOVERY_CACHE, NULL);
	self->manager = g_object_ref(manager);
	return self;
}

static void
erpc_discovery_cache_finalize(GObject *object)
{
	ErpcDiscoveryCache *self = ERPC_DISCOVERY_CACHE(object);

	g_hash_table_unref(self->entries);
	g_clear_object(&self->manager);
	G_OBJECT_CLASS(erpc_discovery_cache_parent_class)->finalize(object);
}

static void
erpc_discovery_cache_init(ErpcDiscoveryCache *self)
{
	self->entries = g_hash_table_new_full(g_str_hash,
					      g_str_equal,
					      g_free,
					      (GDestroyNotify)erpc_discovery_entry_free);
}

static void
erpc_discovery_cache_class_init(ErpcDiscoveryCacheClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = erpc_discovery_cache_finalize;
}
