/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <execrpc.h>
#include <string.h>

#include "esd-discovery-methods.h"
#include "esd-discovery-sandbox.h"
#include "esd-discovery-util.h"
#include "esd-discovery-v1.h"
#include "esd-discovery-v2.h"

/*
 * capabilityRoots/discoverV1 and capabilities/discoverV2. The params are
 * read on the main thread (their errors fail the call, as in the
 * reference); the file system work runs in a worker thread, and a new or
 * removed skill shows at the next call.
 * Roots without a sandbox, or whose policy leaves the file system
 * unrestricted, are read by the daemon itself, and their answers kept until
 * inotify reports a change in what they were read from
 * (esd-discovery-cache.c); the others go to the
 * sandboxed helper (esd-discovery-sandbox.c), one run for all the roots of
 * a call that share a policy. A helper that cannot run makes that root's
 * `error`, never an unsandboxed read.
 */

typedef struct {
	ErpcPlugin *plugin; /* unowned: outlives its methods */
	const EsdDiscoveryLimits *limits;
	EsdDiscoveryCache *cache; /* unowned, as the limits */
} EsdDiscoveryMethods;

typedef struct {
	gchar *id;
	gchar *uri;		   /* the root as it is sent back */
	gchar *path;		   /* NULL when the URI names no local path */
	gchar *error;		   /* the root's error, known from its params */
	ErpcSandboxPolicy *policy; /* a restricted one, or NULL */
	gchar *policy_key;	   /* the `sandbox` as sent, for grouping */
	gchar *answer;		   /* the Discovery less id and path */
} EsdDiscoveryRootJob;

typedef struct {
	ErpcCall *call;
	ErpcPlugin *plugin; /* owns the limits and the cache: kept while the job runs */
	ErpcSandbox *service;
	const EsdDiscoveryLimits *limits;
	EsdDiscoveryCache *cache;
	GPtrArray *roots; /* of EsdDiscoveryRootJob */
	/* discoverV2 */
	gchar *codex_home;
	gchar *home;
	ErpcSandboxPolicy *policy;
} EsdDiscoveryJob;

static void
esd_discovery_root_job_free(gpointer data)
{
	EsdDiscoveryRootJob *root = data;
	g_free(root->id);
	g_free(root->uri);
	g_free(root->path);
	g_free(root->error);
	g_clear_pointer(&root->policy, erpc_sandbox_policy_unref);
	g_free(root->policy_key);
	g_free(root->answer);
	g_free(root);
}

static void
esd_discovery_job_free(gpointer data)
{
	EsdDiscoveryJob *job = data;
	g_object_unref(job->call);
	g_object_unref(job->plugin);
	g_clear_object(&job->service);
	g_clear_pointer(&job->roots, g_ptr_array_unref);
	g_free(job->codex_home);
	g_free(job->home);
	g_clear_pointer(&job->policy, erpc_sandbox_policy_unref);
	g_free(job);
}

static ErpcSandbox *
esd_discovery_service(EsdDiscoveryMethods *methods)
{
	ErpcContext *context = erpc_plugin_get_context(methods->plugin);
	return context != NULL ? erpc_context_get_sandbox(context) : NULL;
}

/*
 * the policy of a `sandbox` member when it restricts the file system, else
 * NULL; FALSE with @error for a `sandbox` that is not one
 */
static gboolean
esd_discovery_read_sandbox(ErpcSandbox *service,
			   JsonObject *sandbox,
			   const gchar *cwd,
			   ErpcSandboxPolicy **policy_out,
			   GError **error)
{
	g_autoptr(ErpcSandboxPolicy) policy = NULL;

	*policy_out = NULL;
	if (service == NULL) {
		g_set_error_literal(error,
				    ERPC_SANDBOX_ERROR,
				    ERPC_SANDBOX_ERROR_UNAVAILABLE,
				    "the requested sandbox is unavailable on this executor: "
				    "the host provides no sandbox");
		return FALSE;
	}
	policy = erpc_sandbox_parse_policy(service, sandbox, cwd, error);
	if (policy == NULL)
		return FALSE;
	if (erpc_sandbox_policy_is_file_system_restricted(policy))
		*policy_out = g_steal_pointer(&policy);
	return TRUE;
}

/* a JSON value as serde names what it found in an `invalid type` error */
static gchar *
esd_discovery_unexpected(JsonNode *node)
{
	if (JSON_NODE_HOLDS_NULL(node))
		return g_strdup("null");
	if (JSON_NODE_HOLDS_ARRAY(node))
		return g_strdup("sequence");
	if (JSON_NODE_HOLDS_OBJECT(node))
		return g_strdup("map");
	if (json_node_get_value_type(node) == G_TYPE_BOOLEAN)
		return g_strdup_printf("boolean `%s`",
				       json_node_get_boolean(node) ? "true" : "false");
	if (json_node_get_value_type(node) == G_TYPE_STRING)
		return g_strdup_printf("string \"%s\"", json_node_get_string(node));
	/* the reference reads the roots through a wire type that names any number so */
	return g_strdup("number");
}

static gboolean
esd_discovery_invalid_type(JsonNode *node, const gchar *expected, GError **error)
{
	g_autofree gchar *found = esd_discovery_unexpected(node);
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_INVALID_PARAMS,
		    "invalid type: %s, expected %s",
		    found,
		    expected);
	return FALSE;
}

/* a required string member of a root */
static gboolean
esd_discovery_root_string(JsonObject *obj, const gchar *member, const gchar **out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, member);

	if (node == NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "missing field `%s`",
			    member);
		return FALSE;
	}
	if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_STRING)
		return esd_discovery_invalid_type(node, "a string", error);
	*out = json_node_get_string(node);
	return TRUE;
}

/*
 * the root's URI as the reference sends it back: as it came, unless it has
 * what its URL parser rewrites (dot segments, escapes, a query), then the
 * URI of the normalised path
 */
static gchar *
esd_discovery_root_uri(const gchar *uri, const gchar *path)
{
	const gchar *rest = uri + strlen("file://");

	if (!g_str_has_prefix(uri, "file:///") || strpbrk(rest, "%?#\\ ") != NULL ||
	    strstr(rest, "//") != NULL || strstr(rest, "/./") != NULL ||
	    strstr(rest, "/../") != NULL || g_str_has_suffix(rest, "/.") ||
	    g_str_has_suffix(rest, "/.."))
		return esd_discovery_path_uri(path);
	return g_strdup(uri);
}

/* one element of `roots`; NULL with @error for params the call fails on */
static EsdDiscoveryRootJob *
esd_discovery_read_root(EsdDiscoveryMethods *methods, JsonNode *node, GError **error)
{
	g_autoptr(GError) error_local = NULL;
	EsdDiscoveryRootJob *root;
	JsonObject *obj;
	const gchar *id = NULL;
	const gchar *uri = NULL;
	JsonObject *sandbox = NULL;

	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		esd_discovery_invalid_type(node, "struct WireCapabilityRootDiscoverRequest", error);
		return NULL;
	}
	obj = json_node_get_object(node);
	if (!esd_discovery_root_string(obj, "id", &id, error) ||
	    !esd_discovery_root_string(obj, "path", &uri, error) ||
	    !erpc_json_get_object(obj, "sandbox", &sandbox, error))
		return NULL;
	root = g_new0(EsdDiscoveryRootJob, 1);
	root->id = g_strdup(id);
	root->path = erpc_uri_to_path(uri, &error_local);
	if (root->path == NULL &&
	    !g_error_matches(error_local, ERPC_ERROR, ERPC_ERROR_INVALID_REQUEST)) {
		g_propagate_error(error, g_steal_pointer(&error_local));
		esd_discovery_root_job_free(root);
		return NULL;
	}
	if (root->path != NULL) {
		root->uri = esd_discovery_root_uri(uri, root->path);
	} else {
		/* a URI with a host, which names no local path; the URL parser gives it a `/` */
		const gchar *host = uri + strlen("file://");
		root->uri = strchr(host, '/') != NULL ? g_strdup(uri) : g_strconcat(uri, "/", NULL);
		root->error = g_strdup_printf(
		    "failed to inspect capability root %s: '%s' is invalid on 'linux'",
		    root->uri,
		    root->uri);
	}
	if (sandbox != NULL) {
		if (!esd_discovery_read_sandbox(esd_discovery_service(methods),
						sandbox,
						NULL,
						&root->policy,
						error)) {
			esd_discovery_root_job_free(root);
			return NULL;
		}
		if (root->policy != NULL)
			root->policy_key =
			    json_to_string(json_object_get_member(obj, "sandbox"), FALSE);
	}
	return root;
}

/* the roots of one policy, in the sandboxed helper; each gets its answer or an error */
static void
esd_discovery_v1_sandboxed(EsdDiscoveryJob *job, GPtrArray *group, GCancellable *cancellable)
{
	EsdDiscoveryRootJob *first = g_ptr_array_index(group, 0);
	g_autoptr(GString) request = g_string_new(NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) answer = NULL;
	g_auto(GStrv) lines = NULL;
	ErpcJsonWriter writer;
	gsize max_output;

	erpc_json_writer_init(&writer, request);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member_string(&writer, "method", "discoverV1");
	esd_discovery_write_limits(&writer, job->limits);
	erpc_json_writer_member(&writer, "roots");
	erpc_json_writer_begin_array(&writer);
	for (guint i = 0; i < group->len; i++) {
		EsdDiscoveryRootJob *root = g_ptr_array_index(group, i);
		erpc_json_writer_begin_object(&writer);
		erpc_json_writer_member_string(&writer, "path", root->path);
		erpc_json_writer_member_string(&writer, "uri", root->uri);
		erpc_json_writer_end_object(&writer);
	}
	erpc_json_writer_end_array(&writer);
	erpc_json_writer_end_object(&writer);

	/* the group's answers are part of the call's */
	max_output = job->limits->max_answer_bytes;
	answer = esd_discovery_sandbox_run(job->service,
					   first->policy,
					   request->str,
					   max_output,
					   cancellable,
					   &error);
	if (answer != NULL) {
		lines = g_strsplit(g_bytes_get_data(answer, NULL), "\n", -1);
		if (g_strv_length(lines) != group->len + 1 || lines[group->len][0] != '\0') {
			g_set_error_literal(
			    &error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "the sandboxed discovery helper gave a malformed answer");
		}
		for (guint i = 0; error == NULL && i < group->len; i++) {
			if (!esd_discovery_answer_check(lines[i], &error))
				break;
		}
	}
	for (guint i = 0; i < group->len; i++) {
		EsdDiscoveryRootJob *root = g_ptr_array_index(group, i);
		if (error == NULL) {
			root->answer = g_strdup(lines[i]);
			continue;
		}
		root->error = g_strdup_printf("failed to inspect capability root %s: %s",
					      root->uri,
					      error->message);
	}
}

/* the limits as a cache key prefix */
static gchar *
esd_discovery_limits_key(const gchar *method, const EsdDiscoveryLimits *limits)
{
	return g_strdup_printf("%s\n%u %u %u %" G_GSIZE_FORMAT " %" G_GSIZE_FORMAT
			       " %" G_GSIZE_FORMAT "\n",
			       method,
			       limits->max_depth,
			       limits->max_directories,
			       limits->max_entries,
			       limits->max_file_bytes,
			       limits->max_root_bytes,
			       limits->max_answer_bytes);
}

/* an unsandboxed root, from the cache or read now (and kept) */
static void
esd_discovery_v1_direct(EsdDiscoveryJob *job, EsdDiscoveryRootJob *root, GString *body)
{
	g_autofree gchar *prefix = esd_discovery_limits_key("discoverV1", job->limits);
	g_autofree gchar *key = g_strconcat(prefix, root->path, "\n", root->uri, NULL);
	g_autofree gchar *cached = esd_discovery_cache_lookup(job->cache, key);
	gboolean recording;

	if (cached != NULL) {
		g_string_append(body, cached);
		return;
	}
	recording = esd_discovery_cache_begin(job->cache, key);
	esd_discovery_v1_root(root->path, root->uri, job->limits, body);
	if (recording)
		esd_discovery_cache_commit(job->cache, body->str);
}

/*
 * The unsandboxed roots, read by a few threads at once: file system latency
 * overlaps. A root is skipped (and gets the limit error when the answer is
 * put together) only when the answer is sure to be full before it: the
 * roots before it, all done, take at least the limit whatever is included,
 * since each takes its answer or an error that names its URI. So what is
 * skipped never depends on which thread finished first.
 */
typedef struct {
	EsdDiscoveryJob *job;
	gint next;	/* the index of the next root to take */
	gboolean *done; /* per root, under lock */
	guint prefix;	/* the roots before this one are all done */
	gsize least;	/* the least those take of the answer */
	GMutex lock;
} EsdDiscoveryPool;

#define ESD_DISCOVERY_MAX_THREADS 4

/* the least @root takes of the answer: its answer, or an error naming its URI */
static gsize
esd_discovery_root_least(EsdDiscoveryRootJob *root)
{
	gsize uri = strlen(root->uri);

	if (root->error != NULL)
		return strlen(root->error);
	if (root->answer != NULL)
		return MIN(strlen(root->answer), uri);
	return uri;
}

/* under the lock: the done prefix moved on as far as it goes */
static void
esd_discovery_pool_advance(EsdDiscoveryPool *pool)
{
	GPtrArray *roots = pool->job->roots;

	while (pool->prefix < roots->len && pool->done[pool->prefix]) {
		pool->least += esd_discovery_root_least(g_ptr_array_index(roots, pool->prefix));
		pool->prefix++;
	}
}

static gpointer
esd_discovery_v1_worker(gpointer data)
{
	EsdDiscoveryPool *pool = data;
	GPtrArray *roots = pool->job->roots;

	for (;;) {
		guint i = (guint)g_atomic_int_add(&pool->next, 1);
		EsdDiscoveryRootJob *root;
		GString *body;
		gboolean full;

		if (i >= roots->len)
			return NULL;
		root = g_ptr_array_index(roots, i);
		if (root->error != NULL || root->answer != NULL || root->policy != NULL)
			continue;
		g_mutex_lock(&pool->lock);
		full = pool->least >= pool->job->limits->max_answer_bytes;
		g_mutex_unlock(&pool->lock);
		if (!full) {
			body = g_string_new(NULL);
			esd_discovery_v1_direct(pool->job, root, body);
			root->answer = g_string_free(body, FALSE);
		}
		g_mutex_lock(&pool->lock);
		pool->done[i] = TRUE;
		esd_discovery_pool_advance(pool);
		g_mutex_unlock(&pool->lock);
	}
}

static void
esd_discovery_v1_direct_all(EsdDiscoveryJob *job)
{
	g_autoptr(GPtrArray) threads = g_ptr_array_new();
	g_autofree gboolean *done = g_new0(gboolean, MAX(job->roots->len, 1));
	EsdDiscoveryPool pool = {job, 0, done, 0, 0, {0}};
	guint direct = 0;
	guint n_threads;

	for (guint i = 0; i < job->roots->len; i++) {
		EsdDiscoveryRootJob *root = g_ptr_array_index(job->roots, i);
		if (root->error == NULL && root->answer == NULL && root->policy == NULL)
			direct++;
		else
			done[i] = TRUE;
	}
	esd_discovery_pool_advance(&pool);
	n_threads = MIN(MIN((guint)g_get_num_processors(), ESD_DISCOVERY_MAX_THREADS), direct);
	g_mutex_init(&pool.lock);
	for (guint i = 1; i < n_threads; i++) {
		GThread *thread =
		    g_thread_try_new("esd-discovery", esd_discovery_v1_worker, &pool, NULL);
		if (thread != NULL)
			g_ptr_array_add(threads, thread);
	}
	esd_discovery_v1_worker(&pool);
	for (guint i = 0; i < threads->len; i++)
		g_thread_join(g_ptr_array_index(threads, i));
	g_mutex_clear(&pool.lock);
}

static void
esd_discovery_v1_thread(GTask *task,
			gpointer source_object,
			gpointer task_data,
			GCancellable *cancellable)
{
	EsdDiscoveryJob *job = task_data;
	g_autoptr(GHashTable) groups =
	    g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)g_ptr_array_unref);
	g_autoptr(GPtrArray) order = g_ptr_array_new();
	GString *out;
	ErpcJsonWriter writer;

	for (guint i = 0; i < job->roots->len; i++) {
		EsdDiscoveryRootJob *root = g_ptr_array_index(job->roots, i);
		GPtrArray *group;

		if (root->error != NULL || root->policy == NULL)
			continue;
		group = g_hash_table_lookup(groups, root->policy_key);
		if (group == NULL) {
			group = g_ptr_array_new();
			g_hash_table_insert(groups, root->policy_key, group);
			g_ptr_array_add(order, group);
		}
		g_ptr_array_add(group, root);
	}
	for (guint i = 0; i < order->len; i++)
		esd_discovery_v1_sandboxed(job, g_ptr_array_index(order, i), cancellable);
	esd_discovery_v1_direct_all(job);

	out = erpc_call_result_string_new(4096);
	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member(&writer, "roots");
	erpc_json_writer_begin_array(&writer);
	for (guint i = 0; i < job->roots->len; i++) {
		EsdDiscoveryRootJob *root = g_ptr_array_index(job->roots, i);
		g_autoptr(GString) body = NULL;

		erpc_json_writer_begin_object(&writer);
		erpc_json_writer_member_string(&writer, "id", root->id);
		erpc_json_writer_member_string(&writer, "path", root->uri);
		/* the rest of the object, `{` dropped, spliced in as it is */
		body = g_string_new(NULL);
		/* a root left out by the workers, or one that does not fit */
		if (root->error == NULL &&
		    (root->answer == NULL ||
		     out->len + strlen(root->answer) > job->limits->max_answer_bytes))
			root->error = g_strdup_printf(
			    "failed to inspect capability root %s: the discovery answer "
			    "exceeds the %" G_GSIZE_FORMAT "-byte limit",
			    root->uri,
			    job->limits->max_answer_bytes);
		if (root->error != NULL)
			esd_discovery_v1_error(root->error, body);
		else
			g_string_append(body, root->answer);
		g_clear_pointer(&root->answer, g_free);
		g_string_append_c(out, ',');
		g_string_append_len(out, body->str + 1, (gssize)body->len - 2);
		erpc_json_writer_end_object(&writer);
	}
	erpc_json_writer_end_array(&writer);
	erpc_json_writer_end_object(&writer);
	g_task_return_pointer(task, out, NULL);
}

static void
esd_discovery_done_cb(GObject *source_object, GAsyncResult *res, gpointer user_data)
{
	EsdDiscoveryJob *job = g_task_get_task_data(G_TASK(res));
	g_autoptr(GError) error = NULL;
	GString *out = g_task_propagate_pointer(G_TASK(res), &error);

	if (out == NULL) {
		erpc_call_return_sandbox_error(job->call, error);
		return;
	}
	erpc_call_return_gstring(job->call, out);
}

static void
esd_discovery_start(EsdDiscoveryJob *job, GTaskThreadFunc func)
{
	g_autoptr(GTask) task =
	    g_task_new(NULL, erpc_call_get_cancellable(job->call), esd_discovery_done_cb, NULL);

	g_task_set_source_tag(task, esd_discovery_start);
	g_task_set_task_data(task, job, esd_discovery_job_free);
	/* the answer is made whatever happens; a cancelled call just ignores it */
	g_task_set_check_cancellable(task, FALSE);
	g_task_run_in_thread(task, func);
}

static void
esd_discovery_methods_v1(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	EsdDiscoveryMethods *methods = user_data;
	g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func(esd_discovery_root_job_free);
	g_autoptr(GError) error = NULL;
	JsonArray *array = NULL;
	EsdDiscoveryJob *job;

	if (!json_object_has_member(params, "roots")) {
		g_set_error_literal(&error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "missing field `roots`");
		erpc_call_return_error(call, error);
		return;
	}
	if (!erpc_json_get_array(params, "roots", &array, &error) || array == NULL) {
		if (error == NULL)
			g_set_error_literal(&error,
					    ERPC_ERROR,
					    ERPC_ERROR_INVALID_PARAMS,
					    "invalid type: null, expected a sequence");
		erpc_call_return_error(call, error);
		return;
	}
	for (guint i = 0; i < json_array_get_length(array); i++) {
		EsdDiscoveryRootJob *root =
		    esd_discovery_read_root(methods, json_array_get_element(array, i), &error);
		if (root == NULL) {
			erpc_call_return_sandbox_error(call, error);
			return;
		}
		g_ptr_array_add(roots, root);
	}
	if (roots->len > methods->limits->max_roots) {
		g_set_error(&error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "capability root discovery accepts at most %u roots",
			    methods->limits->max_roots);
		erpc_call_return_error(call, error);
		return;
	}
	job = g_new0(EsdDiscoveryJob, 1);
	job->call = g_object_ref(call);
	job->plugin = g_object_ref(methods->plugin);
	job->service = esd_discovery_service(methods);
	if (job->service != NULL)
		g_object_ref(job->service);
	job->limits = methods->limits;
	job->cache = methods->cache;
	job->roots = g_steal_pointer(&roots);
	esd_discovery_start(job, esd_discovery_v1_thread);
}

static void
esd_discovery_v2_thread(GTask *task,
			gpointer source_object,
			gpointer task_data,
			GCancellable *cancellable)
{
	EsdDiscoveryJob *job = task_data;
	g_autoptr(GString) request = NULL;
	g_autoptr(GBytes) answer = NULL;
	GError *error = NULL;
	GString *out;
	ErpcJsonWriter writer;

	if (job->policy == NULL) {
		g_autofree gchar *prefix = esd_discovery_limits_key("discoverV2", job->limits);
		g_autofree gchar *key = g_strconcat(prefix,
						    job->codex_home,
						    "\n",
						    job->home != NULL ? job->home : "",
						    NULL);
		g_autofree gchar *cached = esd_discovery_cache_lookup(job->cache, key);
		gboolean recording;

		out = erpc_call_result_string_new(cached != NULL ? strlen(cached) : 4096);
		if (cached != NULL) {
			g_string_append(out, cached);
			g_task_return_pointer(task, out, NULL);
			return;
		}
		recording = esd_discovery_cache_begin(job->cache, key);
		esd_discovery_v2(job->codex_home, job->home, job->limits, out);
		if (recording)
			esd_discovery_cache_commit(job->cache, out->str);
		g_task_return_pointer(task, out, NULL);
		return;
	}
	request = g_string_new(NULL);
	erpc_json_writer_init(&writer, request);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member_string(&writer, "method", "discoverV2");
	esd_discovery_write_limits(&writer, job->limits);
	erpc_json_writer_member_string(&writer, "codexHome", job->codex_home);
	erpc_json_writer_member(&writer, "home");
	if (job->home != NULL)
		erpc_json_writer_string(&writer, job->home, -1);
	else
		erpc_json_writer_null(&writer);
	erpc_json_writer_end_object(&writer);
	answer = esd_discovery_sandbox_run(job->service,
					   job->policy,
					   request->str,
					   job->limits->max_answer_bytes,
					   cancellable,
					   &error);
	if (answer != NULL) {
		const gchar *text = g_bytes_get_data(answer, NULL);
		gsize len = g_bytes_get_size(answer);
		if (len > 0 && text[len - 1] == '\n')
			len--;
		out = erpc_call_result_string_new(len);
		g_string_append_len(out, text, (gssize)len);
		if (esd_discovery_answer_check(out->str, &error)) {
			g_task_return_pointer(task, out, NULL);
			return;
		}
		g_string_free(out, TRUE);
	}
	g_task_return_error(task, error);
}

/* $CODEX_HOME, or ~/.codex as the reference defaults it */
static gchar *
esd_discovery_codex_home(void)
{
	const gchar *env = g_getenv("CODEX_HOME");

	if (env != NULL && env[0] != '\0')
		return g_canonicalize_filename(env, NULL);
	return g_build_filename(g_get_home_dir(), ".codex", NULL);
}

static void
esd_discovery_methods_v2(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	EsdDiscoveryMethods *methods = user_data;
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcSandboxPolicy) policy = NULL;
	g_autofree gchar *cwd = NULL;
	JsonObject *sandbox = NULL;
	EsdDiscoveryJob *job;

	if (!erpc_json_require_path(params, "cwd", &cwd, &error) ||
	    !erpc_json_get_object(params, "sandbox", &sandbox, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	if (sandbox != NULL) {
		/* the strict flavour of the context: its own cwd is required */
		g_autofree gchar *policy_cwd = NULL;
		if (!erpc_json_require_path(sandbox, "cwd", &policy_cwd, &error) ||
		    !esd_discovery_read_sandbox(esd_discovery_service(methods),
						sandbox,
						policy_cwd,
						&policy,
						&error)) {
			erpc_call_return_sandbox_error(call, error);
			return;
		}
	}
	job = g_new0(EsdDiscoveryJob, 1);
	job->call = g_object_ref(call);
	job->plugin = g_object_ref(methods->plugin);
	job->service = esd_discovery_service(methods);
	if (job->service != NULL)
		g_object_ref(job->service);
	job->limits = methods->limits;
	job->cache = methods->cache;
	job->codex_home = esd_discovery_codex_home();
	job->home = g_strdup(g_get_home_dir());
	job->policy = g_steal_pointer(&policy);
	esd_discovery_start(job, esd_discovery_v2_thread);
}

/**
 * esd_discovery_methods_register:
 * @registry: the registry of the plugin's setup
 * @plugin: the plugin, which outlives the methods
 * @limits: the plugin's limits, read when a call runs
 * @cache: the plugin's answers, which outlive the methods
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE if both methods were registered
 */
gboolean
esd_discovery_methods_register(ErpcRegistry *registry,
			       ErpcPlugin *plugin,
			       const EsdDiscoveryLimits *limits,
			       EsdDiscoveryCache *cache,
			       GError **error)
{
	const ErpcMethodInfo methods[] = {
	    {.name = "capabilityRoots/discoverV1",
	     .family = "capability discovery",
	     .params_type = "WireCapabilityRootsDiscoverParams",
	     .func = esd_discovery_methods_v1},
	    {.name = "capabilities/discoverV2",
	     .family = "capability discovery",
	     .params_type = "CapabilitiesDiscoverParams",
	     .func = esd_discovery_methods_v2},
	};

	for (guint i = 0; i < G_N_ELEMENTS(methods); i++) {
		EsdDiscoveryMethods *data = g_new0(EsdDiscoveryMethods, 1);
		data->plugin = plugin;
		data->limits = limits;
		data->cache = cache;
		if (!erpc_registry_add_method(registry, &methods[i], data, g_free, error))
			return FALSE;
	}
	return TRUE;
}
