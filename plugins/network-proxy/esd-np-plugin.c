/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <sys/socket.h>

#include "esd-np-config.h"
#include "esd-np-io.h"
#include "esd-np-plugin.h"
#include "esd-np-proxy.h"

/**
 * EsdNpPlugin:
 *
 * The managed network proxy: a launch hook that claims
 * `process/start.networkProxy`, starts an #EsdNpProxy for the process
 * before it runs, points the command's proxy variables at it, and stops it
 * when the process closes (or never ran).
 */

struct _EsdNpPlugin {
	ErpcPlugin parent_instance;
	EsdNpNotes *notes; /* every proxy's decisions, once set up */
	EsdNpCa *ca;	   /* credential masking's authority, made on first use */
};

static void
esd_np_plugin_hook_init(ErpcLaunchHookInterface *iface);

G_DEFINE_TYPE_WITH_CODE(EsdNpPlugin,
			esd_np_plugin,
			ERPC_TYPE_PLUGIN,
			G_IMPLEMENT_INTERFACE(ERPC_TYPE_LAUNCH_HOOK, esd_np_plugin_hook_init))

/* what a launch holds: the configuration until the proxy takes it */
typedef struct {
	EsdNpConfig *config;
	EsdNpProxy *proxy;
} EsdNpLaunch;

static void
esd_np_launch_free(gpointer data)
{
	EsdNpLaunch *launch = data;

	if (launch->proxy != NULL)
		esd_np_proxy_stop(launch->proxy);
	g_clear_object(&launch->proxy);
	esd_np_config_free(launch->config);
	g_free(launch);
}

static const gchar *const *
esd_np_plugin_get_members(ErpcLaunchHook *hook)
{
	static const gchar *const members[] = {"networkProxy", NULL};
	return members;
}

static gboolean
esd_np_plugin_claim(ErpcLaunchHook *hook,
		    ErpcLaunch *launch,
		    const gchar *member,
		    JsonNode *value,
		    GError **error)
{
	EsdNpConfig *config = esd_np_config_parse(value, erpc_launch_is_sandboxed(launch), error);
	EsdNpLaunch *data;

	if (config == NULL)
		return FALSE;
	data = g_new0(EsdNpLaunch, 1);
	data->config = config;
	erpc_launch_set_hook_data(launch, hook, data, esd_np_launch_free);
	return TRUE;
}

/* the variables of WAVE2.md, as the reference sets them */
static void
esd_np_plugin_setenv(ErpcLaunch *launch,
		     const EsdNpConfig *config,
		     guint16 port,
		     guint16 socks_port)
{
	static const gchar *const proxies[] = {"HTTP_PROXY",
					       "HTTPS_PROXY",
					       "ALL_PROXY",
					       "FTP_PROXY",
					       "WS_PROXY",
					       "WSS_PROXY",
					       "http_proxy",
					       "https_proxy",
					       "all_proxy",
					       "ftp_proxy",
					       "ws_proxy",
					       "wss_proxy",
					       "NPM_CONFIG_PROXY",
					       "NPM_CONFIG_HTTP_PROXY",
					       "NPM_CONFIG_HTTPS_PROXY",
					       "npm_config_proxy",
					       "npm_config_http_proxy",
					       "npm_config_https_proxy",
					       "YARN_HTTP_PROXY",
					       "YARN_HTTPS_PROXY",
					       "PIP_PROXY",
					       "DOCKER_HTTP_PROXY",
					       "DOCKER_HTTPS_PROXY",
					       "BUNDLE_HTTP_PROXY",
					       "BUNDLE_HTTPS_PROXY",
					       NULL};
	static const gchar *const no_proxies[] = {"NO_PROXY",
						  "no_proxy",
						  "NPM_CONFIG_NOPROXY",
						  "npm_config_noproxy",
						  "BUNDLE_NO_PROXY",
						  NULL};
	g_autofree gchar *url = g_strdup_printf("http://127.0.0.1:%u", port);
	/* with local binding allowed, local destinations bypass the proxy */
	const gchar *no_proxy =
	    config->allow_local_binding
		? "localhost,127.0.0.1,::1,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16"
		: "";

	static const gchar *const socks[] = {"ALL_PROXY",
					     "all_proxy",
					     "FTP_PROXY",
					     "ftp_proxy",
					     NULL};

	for (guint i = 0; proxies[i] != NULL; i++)
		erpc_launch_setenv(launch, proxies[i], url);
	/* with SOCKS5, what is not HTTP goes through it, as the reference sets it */
	if (socks_port != 0) {
		g_autofree gchar *socks_url = g_strdup_printf("socks5h://127.0.0.1:%u", socks_port);
		for (guint i = 0; socks[i] != NULL; i++)
			erpc_launch_setenv(launch, socks[i], socks_url);
	}
	for (guint i = 0; no_proxies[i] != NULL; i++)
		erpc_launch_setenv(launch, no_proxies[i], no_proxy);
	erpc_launch_setenv(launch, "CODEX_NETWORK_PROXY_ACTIVE", "1");
	erpc_launch_setenv(launch,
			   "CODEX_NETWORK_ALLOW_LOCAL_BINDING",
			   config->allow_local_binding ? "1" : "0");
	erpc_launch_setenv(launch, "NODE_USE_ENV_PROXY", "1");
	erpc_launch_setenv(launch, "ELECTRON_GET_USE_PROXY", "true");
}

/*
 * credentialMasking: the launch's secrets become placeholders, and the
 * command trusts the authority the proxy answers intercepted tunnels with,
 * through the variables the reference sets (a bundle of the system's roots
 * and the authority).
 */
static EsdNpCreds *
esd_np_plugin_mask(EsdNpPlugin *self, ErpcLaunch *launch, EsdNpConfig *config, GError **error)
{
	static const gchar *const bundles[] = {"BUNDLE_SSL_CA_CERT",
					       "CARGO_HTTP_CAINFO",
					       "CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE",
					       "CODEX_CA_CERTIFICATE",
					       "CURL_CA_BUNDLE",
					       "DENO_CERT",
					       "GIT_SSL_CAINFO",
					       "NODE_EXTRA_CA_CERTS",
					       "NPM_CONFIG_CAFILE",
					       "npm_config_cafile",
					       "PIP_CERT",
					       "REQUESTS_CA_BUNDLE",
					       "SSL_CERT_FILE",
					       NULL};
	const gchar *bundle;

	if (self->ca == NULL) {
		g_autoptr(GError) local = NULL;

		/* the user's runtime directory, else (a system daemon, no HOME) the temporary one
		 */
		self->ca = esd_np_ca_new(g_get_user_runtime_dir(), &local);
		if (self->ca == NULL) {
			g_debug("credential masking: %s", local->message);
			self->ca = esd_np_ca_new(NULL, error);
		}
		if (self->ca == NULL)
			return NULL;
		g_info("credential masking: the proxy's authority is in %s",
		       esd_np_ca_get_bundle(self->ca));
	}
	bundle = esd_np_ca_get_bundle(self->ca);
	for (guint i = 0; bundles[i] != NULL; i++)
		erpc_launch_setenv(launch, bundles[i], bundle);
	erpc_launch_add_sandbox_file(launch, bundle);
	return esd_np_creds_new(config->providers, launch);
}

/*
 * A sandbox without a network of its own reaches the proxy through its
 * managed network: listeners at the same ports on the loopback of the
 * sandbox's namespace, handed to the proxy over a socket pair of this
 * launch alone.
 */
static gboolean
esd_np_plugin_route_sandbox(ErpcLaunch *launch, EsdNpProxy *proxy, GError **error)
{
	ErpcSandboxPolicy *policy = erpc_launch_get_policy(launch);
	guint16 ports[2] = {esd_np_proxy_get_port(proxy), esd_np_proxy_get_socks_port(proxy)};
	gint pair[2];
	JsonNode *enforce =
	    json_object_get_member(erpc_launch_get_params(launch), "enforceManagedNetwork");
	gboolean enforced = enforce != NULL && JSON_NODE_HOLDS_VALUE(enforce) &&
			    json_node_get_value_type(enforce) == G_TYPE_BOOLEAN &&
			    json_node_get_boolean(enforce);

	/* enforceManagedNetwork: any `sandbox`, even one that isolates nothing else */
	if (policy == NULL || (!enforced && !erpc_launch_is_sandboxed(launch)))
		return TRUE;
	/* with the host's network the proxy is reached directly, unless the client enforces */
	if (!enforced && erpc_sandbox_policy_get_network(policy) != ERPC_SANDBOX_NETWORK_RESTRICTED)
		return TRUE;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
		esd_np_io_set_error(error, errno, "socketpair");
		return FALSE;
	}
	esd_np_proxy_attach_channel(proxy, pair[0]);
	erpc_launch_set_managed_network(launch, pair[1], ports, ports[1] != 0 ? 2 : 1);
	/* SOCKS5 UDP: the relays on the namespace's loopback, one an association */
	erpc_launch_set_managed_datagrams(launch, esd_np_proxy_get_udp_relays(proxy));
	return TRUE;
}

static void
esd_np_plugin_prepare_async(ErpcLaunchHook *hook,
			    ErpcLaunch *launch,
			    GCancellable *cancellable,
			    GAsyncReadyCallback callback,
			    gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(hook, cancellable, callback, user_data);
	EsdNpLaunch *data = erpc_launch_get_hook_data(launch, hook);
	g_autoptr(GError) error = NULL;
	EsdNpConfig *config = g_steal_pointer(&data->config);
	EsdNpPlugin *self = ESD_NP_PLUGIN(hook);
	EsdNpCreds *creds = NULL;

	if (config->credential_masking) {
		creds = esd_np_plugin_mask(self, launch, config, &error);
		if (creds == NULL) {
			esd_np_config_free(config);
			g_task_return_new_error(
			    task,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "failed to start the network proxy: credential masking: %s",
			    error->message);
			return;
		}
	}
	data->proxy = esd_np_proxy_new(config, launch, self->notes, self->ca, creds, &error);
	if (data->proxy == NULL) {
		g_task_return_new_error(task,
					ERPC_ERROR,
					ERPC_ERROR_INTERNAL,
					"failed to start the network proxy: %s",
					error->message);
		return;
	}
	esd_np_plugin_setenv(launch,
			     config,
			     esd_np_proxy_get_port(data->proxy),
			     esd_np_proxy_get_socks_port(data->proxy));
	if (!esd_np_plugin_route_sandbox(launch, data->proxy, &error)) {
		g_task_return_new_error(task,
					ERPC_ERROR,
					ERPC_ERROR_INTERNAL,
					"failed to route the sandbox to the network proxy: %s",
					error->message);
		return;
	}
	g_task_return_boolean(task, TRUE);
}

static gboolean
esd_np_plugin_prepare_finish(ErpcLaunchHook *hook, GAsyncResult *result, GError **error)
{
	return g_task_propagate_boolean(G_TASK(result), error);
}

/* the decisions queued so far go out before the exit is reported */
static void
esd_np_plugin_exiting(ErpcLaunchHook *hook, ErpcLaunch *launch)
{
	EsdNpLaunch *data = erpc_launch_get_hook_data(launch, hook);

	if (data != NULL && data->proxy != NULL)
		esd_np_proxy_exiting(data->proxy);
}

static void
esd_np_plugin_closed(ErpcLaunchHook *hook, ErpcLaunch *launch)
{
	EsdNpLaunch *data = erpc_launch_get_hook_data(launch, hook);

	if (data != NULL && data->proxy != NULL) {
		esd_np_proxy_stop(data->proxy);
		g_clear_object(&data->proxy);
	}
}

static void
esd_np_plugin_hook_init(ErpcLaunchHookInterface *iface)
{
	iface->get_members = esd_np_plugin_get_members;
	iface->claim = esd_np_plugin_claim;
	iface->prepare_async = esd_np_plugin_prepare_async;
	iface->prepare_finish = esd_np_plugin_prepare_finish;
	iface->exiting = esd_np_plugin_exiting;
	iface->closed = esd_np_plugin_closed;
}

static gboolean
esd_np_plugin_setup(ErpcPlugin *plugin, ErpcRegistry *registry, GError **error)
{
	EsdNpPlugin *self = ESD_NP_PLUGIN(plugin);

	self->notes = esd_np_notes_new(g_main_context_get_thread_default(),
				       esd_np_proxy_deliver_note,
				       esd_np_proxy_free_note,
				       error);
	if (self->notes == NULL)
		return FALSE;
	if (!erpc_registry_add_capability(registry, "networkProxyLaunch", 1, error) ||
	    !erpc_registry_add_capability(registry, "networkProxyReviewDomains", 1, error) ||
	    !erpc_registry_add_capability(registry, "credentialMasking", 1, error) ||
	    !erpc_registry_add_capability(registry, "credentialMaskingCustomProviders", 1, error))
		return FALSE;
	return erpc_context_add_launch_hook(erpc_registry_get_context(registry),
					    ERPC_LAUNCH_HOOK(plugin),
					    error);
}

/* a plugin is never unloaded: what it wrote goes when the daemon stops */
static void
esd_np_plugin_shutdown(ErpcPlugin *plugin)
{
	EsdNpPlugin *self = ESD_NP_PLUGIN(plugin);

	if (self->ca != NULL)
		esd_np_ca_remove_bundle(self->ca);
}

static void
esd_np_plugin_finalize(GObject *object)
{
	EsdNpPlugin *self = ESD_NP_PLUGIN(object);

	g_clear_pointer(&self->notes, esd_np_notes_unref);
	g_clear_pointer(&self->ca, esd_np_ca_unref);
	G_OBJECT_CLASS(esd_np_plugin_parent_class)->finalize(object);
}

static void
esd_np_plugin_init(EsdNpPlugin *self)
{
}

static void
esd_np_plugin_class_init(EsdNpPluginClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = esd_np_plugin_finalize;
	ERPC_PLUGIN_CLASS(klass)->setup = esd_np_plugin_setup;
	ERPC_PLUGIN_CLASS(klass)->shutdown = esd_np_plugin_shutdown;
}

ERPC_PLUGIN_DEFINE("network-proxy",
		   PACKAGE_VERSION,
		   "the managed network proxy of process/start.networkProxy",
		   esd_np_plugin_get_type)
