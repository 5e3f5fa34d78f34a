/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <execrpc-plugin.h>

/*
 * A well-formed plugin for the tests: `test/echo` returns its params,
 * `test/sleep` answers after `ms` milliseconds (to observe request
 * concurrency), and `test/future` is gated on a capability version the
 * plugin does not have, so it must look unknown. Its one option,
 * `--echo-fail-startup=MESSAGE` (`fail-startup` in `[echo]` of the config
 * file), makes its startup fail with MESSAGE: the tests read there which
 * value reached the plugin.
 */

#define ESD_TYPE_ECHO_PLUGIN (esd_echo_plugin_get_type())
G_DECLARE_FINAL_TYPE(EsdEchoPlugin, esd_echo_plugin, ESD, ECHO_PLUGIN, ErpcPlugin)

struct _EsdEchoPlugin {
	ErpcPlugin parent_instance;
	guint connections_closed;
	gchar *fail_startup;	    /* --echo-fail-startup: GOption overwrites it without freeing */
	gchar *fail_startup_config; /* fail-startup of the config file */
};

G_DEFINE_TYPE(EsdEchoPlugin, esd_echo_plugin, ERPC_TYPE_PLUGIN)

static void
esd_echo_plugin_echo(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	JsonNode *node = json_node_init_object(json_node_alloc(), params);
	erpc_call_return(call, node);
}

static gboolean
esd_echo_plugin_sleep_done_cb(gpointer user_data)
{
	ErpcCall *call = ERPC_CALL(user_data);
	erpc_call_return(call, NULL);
	return G_SOURCE_REMOVE;
}

static void
esd_echo_plugin_sleep(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	guint64 ms = 0;

	if (!erpc_json_require_uint64(params, "ms", &ms, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	g_timeout_add_full(G_PRIORITY_DEFAULT,
			   (guint)MIN(ms, 10000),
			   esd_echo_plugin_sleep_done_cb,
			   g_object_ref(call),
			   g_object_unref);
}

static gboolean
esd_echo_plugin_setup(ErpcPlugin *plugin, ErpcRegistry *registry, GError **error)
{
	const ErpcMethodInfo methods[] = {
	    {.name = "test/echo",
	     .family = "test",
	     .params_type = "EchoParams",
	     .capability = "testEcho",
	     .since_version = 1,
	     .func = esd_echo_plugin_echo},
	    {.name = "test/sleep",
	     .family = "test",
	     .params_type = "SleepParams",
	     .func = esd_echo_plugin_sleep},
	    {.name = "test/future",
	     .family = "test",
	     .params_type = "FutureParams",
	     .capability = "testEcho",
	     .since_version = 2,
	     .func = esd_echo_plugin_echo},
	};

	if (!erpc_registry_add_capability(registry, "testEcho", 1, error))
		return FALSE;
	for (guint i = 0; i < G_N_ELEMENTS(methods); i++) {
		if (!erpc_registry_add_method(registry, &methods[i], plugin, NULL, error))
			return FALSE;
	}
	return TRUE;
}

static void
esd_echo_plugin_connection_closed(ErpcPlugin *plugin, ErpcConnection *connection)
{
	ESD_ECHO_PLUGIN(plugin)->connections_closed++;
}

static GOptionGroup *
esd_echo_plugin_get_option_group(ErpcPlugin *plugin)
{
	EsdEchoPlugin *self = ESD_ECHO_PLUGIN(plugin);
	const GOptionEntry entries[] = {{"echo-fail-startup",
					 0,
					 0,
					 G_OPTION_ARG_STRING,
					 &self->fail_startup,
					 "Fail the plugin's startup with MESSAGE",
					 "MESSAGE"},
					{NULL}};
	GOptionGroup *group =
	    g_option_group_new("echo", "Echo test plugin:", "Show the echo options", self, NULL);

	g_option_group_add_entries(group, entries);
	return group;
}

static gboolean
esd_echo_plugin_load_config(ErpcPlugin *plugin, GKeyFile *file, const gchar *group, GError **error)
{
	EsdEchoPlugin *self = ESD_ECHO_PLUGIN(plugin);
	const gchar *const keys[] = {"fail-startup", NULL};
	g_autofree gchar *value = NULL;

	erpc_plugin_check_config_keys(plugin, file, group, keys);
	if (!g_key_file_has_key(file, group, "fail-startup", NULL))
		return TRUE;
	value = g_key_file_get_string(file, group, "fail-startup", error);
	if (value == NULL)
		return FALSE;
	g_free(self->fail_startup_config);
	self->fail_startup_config = g_steal_pointer(&value);
	return TRUE;
}

static gboolean
esd_echo_plugin_startup(ErpcPlugin *plugin, GError **error)
{
	EsdEchoPlugin *self = ESD_ECHO_PLUGIN(plugin);

	/* the command line wins over the file */
	const gchar *fail =
	    self->fail_startup != NULL ? self->fail_startup : self->fail_startup_config;

	if (fail == NULL)
		return TRUE;
	g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "refused: %s", fail);
	return FALSE;
}

static void
esd_echo_plugin_finalize(GObject *object)
{
	g_free(ESD_ECHO_PLUGIN(object)->fail_startup);
	g_free(ESD_ECHO_PLUGIN(object)->fail_startup_config);
	G_OBJECT_CLASS(esd_echo_plugin_parent_class)->finalize(object);
}

static void
esd_echo_plugin_init(EsdEchoPlugin *self)
{
}

static void
esd_echo_plugin_class_init(EsdEchoPluginClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = esd_echo_plugin_finalize;
	ERPC_PLUGIN_CLASS(klass)->setup = esd_echo_plugin_setup;
	ERPC_PLUGIN_CLASS(klass)->get_option_group = esd_echo_plugin_get_option_group;
	ERPC_PLUGIN_CLASS(klass)->load_config = esd_echo_plugin_load_config;
	ERPC_PLUGIN_CLASS(klass)->startup = esd_echo_plugin_startup;
	ERPC_PLUGIN_CLASS(klass)->connection_closed = esd_echo_plugin_connection_closed;
}

ERPC_PLUGIN_DEFINE("echo", "1.2.3", "test plugin: echo and sleep", esd_echo_plugin_get_type)
