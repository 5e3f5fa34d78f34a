/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <glib-unix.h>
#include <glib/gi18n.h>
#include <locale.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "erpc-context-private.h"
#include "erpc-plugin-private.h"
#include "erpc-registry-private.h"
#include "esd-activation.h"
#include "esd-config.h"
#include "esd-dbus-service.h"
#include "esd-host-doors.h"
#include "esd-server.h"
#include "esd-spawn.h"

typedef struct {
	GMainLoop *loop;
	EsdServer *server;
	gint exit_code;
	gboolean dbus;
} EsdMain;

static gboolean
esd_main_signal_cb(gpointer user_data)
{
	EsdMain *self = user_data;
	g_message("received a signal, shutting down");
	g_main_loop_quit(self->loop);
	return G_SOURCE_CONTINUE;
}

static void
esd_main_finished_cb(EsdServer *server, EsdMain *self)
{
	/* on the bus, new connections still come through OpenConnection */
	if (self->dbus)
		return;
	g_debug("no listener left, exiting");
	g_main_loop_quit(self->loop);
}

static void
esd_main_dbus_quit_cb(EsdDBusService *service, gint exit_code, EsdMain *self)
{
	self->exit_code = exit_code;
	g_main_loop_quit(self->loop);
}

/* the text form: to stderr only, stdout belongs to the protocol or the bound URL */
static void
esd_main_log_text(GLogLevelFlags log_level, const gchar *log_domain, const gchar *message)
{
	const gchar *level;

	switch (log_level & G_LOG_LEVEL_MASK) {
	case G_LOG_LEVEL_ERROR:
		level = "ERROR";
		break;
	case G_LOG_LEVEL_CRITICAL:
		level = "CRITICAL";
		break;
	case G_LOG_LEVEL_WARNING:
		level = "WARNING";
		break;
	case G_LOG_LEVEL_MESSAGE:
		level = "MESSAGE";
		break;
	case G_LOG_LEVEL_INFO:
		level = "INFO";
		break;
	case G_LOG_LEVEL_DEBUG:
		level = "DEBUG";
		break;
	default:
		level = "LOG";
		break;
	}
	fprintf(stderr,
		"%s-%s: %s\n",
		log_domain != NULL ? log_domain : "execserverd",
		level,
		message != NULL ? message : "");
}

/* systemd's way to tell: JOURNAL_STREAM names the device and inode of stderr */
static gboolean
esd_main_stderr_is_journal(void)
{
	const gchar *stream = g_getenv("JOURNAL_STREAM");
	struct stat st;
	guint64 dev = 0;
	guint64 ino = 0;
	gchar *end = NULL;

	if (stream == NULL || fstat(STDERR_FILENO, &st) != 0)
		return g_log_writer_is_journald(STDERR_FILENO);
	dev = g_ascii_strtoull(stream, &end, 10);
	if (end == stream || *end != ':')
		return FALSE;
	stream = end + 1;
	ino = g_ascii_strtoull(stream, &end, 10);
	if (end == stream || *end != '\0')
		return FALSE;
	return dev == (guint64)st.st_dev && ino == (guint64)st.st_ino;
}

/*
 * Under systemd (stderr is the journal stream) every record goes to the
 * journal with its fields and priority; elsewhere it is a line of text.
 * Debug records are kept for the domains of G_MESSAGES_DEBUG; info records
 * as well, and with -v; the journal also takes every info record, as the
 * process lifecycle records are info.
 */
static GLogWriterOutput
esd_main_log_writer(GLogLevelFlags log_level,
		    const GLogField *fields,
		    gsize n_fields,
		    gpointer user_data)
{
	static gint journald = -1;
	gboolean verbose = *(const gboolean *)user_data;
	const gchar *log_domain = NULL;
	const gchar *message = NULL;
	GLogLevelFlags level = log_level & G_LOG_LEVEL_MASK;

	for (gsize i = 0; i < n_fields; i++) {
		if (g_str_equal(fields[i].key, "GLIB_DOMAIN"))
			log_domain = fields[i].value;
		else if (g_str_equal(fields[i].key, "MESSAGE"))
			message = fields[i].value;
	}
	if (journald < 0)
		journald = esd_main_stderr_is_journal();
	if (level == G_LOG_LEVEL_DEBUG && g_log_writer_default_would_drop(level, log_domain))
		return G_LOG_WRITER_HANDLED;
	if (level == G_LOG_LEVEL_INFO && !journald && !verbose &&
	    g_log_writer_default_would_drop(level, log_domain))
		return G_LOG_WRITER_HANDLED;
	if (journald &&
	    g_log_writer_journald(log_level, fields, n_fields, NULL) == G_LOG_WRITER_HANDLED)
		return G_LOG_WRITER_HANDLED;
	esd_main_log_text(log_level, log_domain, message);
	return G_LOG_WRITER_HANDLED;
}

/* a directory named on the command line that gives no plugin is a mistake worth a word */
static void
esd_main_check_plugins_dir(const gchar *dir)
{
	g_autoptr(GDir) gdir = NULL;
	g_autoptr(GError) error = NULL;

	gdir = g_dir_open(dir, 0, &error);
	if (gdir == NULL)
		g_warning("--plugins-dir %s: %s", dir, error->message);
}

static void
esd_main_list_plugins(EsdServer *server)
{
	EsdPluginLoader *loader = esd_server_get_loader(server);
	ErpcRegistry *registry = esd_server_get_registry(server);
	GPtrArray *plugins = esd_plugin_loader_get_plugins(loader);

	for (guint i = 0; i < plugins->len; i++) {
		ErpcPlugin *plugin = g_ptr_array_index(plugins, i);
		const ErpcPluginInfo *info = esd_plugin_loader_get_info(loader, plugin);
		const gchar *name = erpc_plugin_get_name(plugin);
		g_autoptr(GPtrArray) methods = erpc_registry_list_methods(registry, name);
		g_autoptr(GPtrArray) caps = erpc_registry_list_capabilities(registry, name);
		g_autoptr(GPtrArray) exts = erpc_registry_list_extensions(registry, NULL, name);

		g_print("%s %s\n", name, info->version);
		g_print("  %s\n", info->description);
		g_print("  %s: %s\n", _("path"), esd_plugin_loader_get_path(loader, plugin));
		g_print("  %s:", _("methods"));
		for (guint j = 0; j < methods->len; j++)
			g_print(" %s", (const gchar *)g_ptr_array_index(methods, j));
		g_print("\n  %s:", _("capabilities"));
		for (guint j = 0; j < caps->len; j++) {
			const gchar *cap = g_ptr_array_index(caps, j);
			g_print(" %s=%u", cap, erpc_registry_get_capability_version(registry, cap));
		}
		g_print("\n  %s:", _("extensions"));
		for (guint j = 0; j < exts->len; j++)
			g_print(" %s", (const gchar *)g_ptr_array_index(exts, j));
		g_print("\n");
	}
}

/* descriptors the daemon needs besides one per connection: logs, the bus, plugins, pipes */
#define ESD_MAIN_RESERVED_FDS 64

/*
 * connections, pipes and sandbox binds all take descriptors: use what the hard
 * limit allows (commands get a soft limit of their own from esd-supervise)
 */
static void
esd_main_raise_fd_limit(guint max_connections)
{
	struct rlimit limit;

	if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
		return;
	if (limit.rlim_cur < limit.rlim_max) {
		limit.rlim_cur = limit.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
			g_debug("cannot raise the descriptor limit: %s", g_strerror(errno));
			getrlimit(RLIMIT_NOFILE, &limit);
		}
	}
	/* not fatal: an accept that finds no descriptor waits for one */
	if (max_connections > 0 && limit.rlim_cur != RLIM_INFINITY &&
	    limit.rlim_cur < (rlim_t)max_connections + ESD_MAIN_RESERVED_FDS)
		g_message("the descriptor limit (%" G_GUINT64_FORMAT
			  ") is too low for --max-connections %u: "
			  "connections beyond it wait until descriptors free up",
			  (guint64)limit.rlim_cur,
			  max_connections);
}

/* each plugin's options, shown by --help-all and --help-NAME */
static void
esd_main_add_plugin_groups(GOptionContext *context, EsdServer *server)
{
	GPtrArray *plugins = esd_plugin_loader_get_plugins(esd_server_get_loader(server));

	for (guint i = 0; i < plugins->len; i++) {
		GOptionGroup *group =
		    erpc_plugin_runner_get_option_group(g_ptr_array_index(plugins, i));
		if (group != NULL)
			g_option_context_add_group(context, group);
	}
}

/*
 * The config files, before the command line replaces what they set: the one
 * --config names (the last one), else the system file and then the user's,
 * whose keys replace the system file's. [execserverd] holds the daemon's own
 * options (their string lists go to *listen), the other sections are the
 * plugins'.
 */
static gboolean
esd_main_load_config(EsdServer *server,
		     const gchar *const *config,
		     const GOptionEntry *entries,
		     GStrv *listen,
		     GError **error)
{
	/* read before any file, or not settings */
	static const gchar *const not_keys[] = {"config",
						"plugins-dir",
						"list-plugins",
						"version",
						NULL};
	g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func(g_free);
	gboolean required = config[0] != NULL;

	if (required)
		g_ptr_array_add(paths, g_strdup(config[g_strv_length((gchar **)config) - 1]));
	else {
		g_ptr_array_add(paths, esd_config_system_path());
		g_ptr_array_add(paths, esd_config_user_path());
	}
	for (guint i = 0; i < paths->len; i++) {
		const gchar *path = g_ptr_array_index(paths, i);
		g_autoptr(GKeyFile) file = NULL;
		g_autoptr(GError) error_local = NULL;

		file = esd_config_read(path, required, &error_local);
		if (file == NULL) {
			if (error_local == NULL)
				continue;
			g_propagate_error(error, g_steal_pointer(&error_local));
			return FALSE;
		}
		if (!esd_config_apply_entries(file,
					      path,
					      ESD_CONFIG_GROUP,
					      entries,
					      not_keys,
					      error))
			return FALSE;
		if (g_key_file_has_key(file, ESD_CONFIG_GROUP, "listen", NULL)) {
			g_strfreev(*listen);
			*listen = g_key_file_get_string_list(file,
							     ESD_CONFIG_GROUP,
							     "listen",
							     NULL,
							     &error_local);
			if (*listen == NULL) {
				g_set_error(error,
					    G_IO_ERROR,
					    G_IO_ERROR_INVALID_DATA,
					    "%s: [%s] listen: %s",
					    path,
					    ESD_CONFIG_GROUP,
					    error_local->message);
				return FALSE;
			}
		}
		if (!esd_config_apply(file, path, esd_server_get_loader(server), error))
			return FALSE;
	}
	return TRUE;
}

int
main(int argc, char *argv[])
{
	EsdMain self = {0};
	gboolean version = FALSE;
	gboolean list_plugins = FALSE;
	gboolean verbose = FALSE;
	gboolean pid_namespace = FALSE;
	gboolean no_spawn_server = FALSE;
	gboolean dbus = FALSE;
	gboolean dbus_allow_sandboxed = FALSE;
	gint idle_timeout = 60;
	const gchar *build_plugindir;
	const gchar *supervisor;
	gint concurrent_requests = 1;
	gint session_grace = 80;
	gint process_retention = 80;
	gint64 max_retained_output = 1024 * 1024;
	EsdLimits limits = ESD_LIMITS_DEFAULT;
	gint max_connections = (gint)limits.max_connections;
	gint max_connections_per_peer = (gint)limits.max_connections_per_peer;
	gint64 max_queued_bytes = (gint64)limits.max_queued_bytes;
	gint max_pending_requests = (gint)limits.max_pending_requests;
	gint handshake_timeout = (gint)limits.handshake_timeout;
	gint max_processes = (gint)limits.max_processes;
	gint max_json_depth = (gint)limits.max_json_depth;
	gint64 max_message_size = 128 * 1024 * 1024;
	g_auto(GStrv) listen = NULL;
	g_auto(GStrv) listen_config = NULL;
	g_auto(GStrv) plugin_dirs = NULL;
	g_auto(GStrv) plugin_dirs_early = NULL;
	g_autofree gchar *config_path = NULL;
	g_auto(GStrv) config_early = NULL;
	g_autoptr(GOptionContext) context = NULL;
	g_autoptr(GVariant) listener_options = NULL;
	GOptionGroup *main_group;
	ErpcContext *plugin_context;
	g_autoptr(GError) error = NULL;
	g_autoptr(GError) config_error = NULL;
	g_autoptr(EsdServer) server = NULL;
	g_autoptr(GMainLoop) loop = NULL;
	g_autoptr(EsdDBusService) dbus_service = NULL;
	const GOptionEntry entries[] = {
	    {"listen",
	     'l',
	     0,
	     G_OPTION_ARG_STRING_ARRAY,
	     &listen,
	     /* TRANSLATORS: --listen */
	     N_("Where to accept connections: ws://IP:PORT, wss://IP:PORT, stdio, fd:N (a "
		"connected or listening socket) or systemd (socket activation) (default "
		"ws://127.0.0.1:0)"),
	     "URL"},
	    {"dbus",
	     0,
	     0,
	     G_OPTION_ARG_NONE,
	     &dbus,
	     /* TRANSLATORS: --dbus */
	     N_("Own dev.execserverd.ExecServer1 on the session bus (D-Bus activation)"),
	     NULL},
	    {"dbus-allow-sandboxed",
	     0,
	     0,
	     G_OPTION_ARG_NONE,
	     &dbus_allow_sandboxed,
	     N_("With --dbus, also serve callers inside a Flatpak or snap sandbox: their "
		"commands run outside it (default: refused)"),
	     NULL},
	    {"idle-timeout",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &idle_timeout,
	     N_("With --dbus, exit after this long without connections, processes or resumable "
		"sessions, 0 never (default 60)"),
	     "SECONDS"},
	    {"plugins-dir",
	     0,
	     0,
	     G_OPTION_ARG_FILENAME_ARRAY,
	     &plugin_dirs,
	     /* TRANSLATORS: --plugins-dir */
	     N_("Load plugins from DIR before the installed ones (repeatable)"),
	     "DIR"},
	    {"config",
	     0,
	     0,
	     G_OPTION_ARG_FILENAME,
	     &config_path,
	     /* TRANSLATORS: --config */
	     N_("Read the settings from FILE instead of the system and the user config file "
		"(see execserverd(8))"),
	     "FILE"},
	    {"list-plugins",
	     0,
	     0,
	     G_OPTION_ARG_NONE,
	     &list_plugins,
	     N_("List the loaded plugins with their methods and capabilities, then exit"),
	     NULL},
	    {"concurrent-requests",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &concurrent_requests,
	     N_("Requests run at once per connection (default 1)"),
	     "N"},
	    {"session-grace",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &session_grace,
	     N_("Seconds a detached session stays resumable (default 80)"),
	     "SECONDS"},
	    {"process-retention",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &process_retention,
	     N_("Seconds a closed process stays readable (default 80)"),
	     "SECONDS"},
	    {"max-retained-output",
	     0,
	     0,
	     G_OPTION_ARG_INT64,
	     &max_retained_output,
	     N_("Newest output bytes kept per process for process/read (default 1048576)"),
	     "BYTES"},
	    {"max-message-size",
	     0,
	     0,
	     G_OPTION_ARG_INT64,
	     &max_message_size,
	     N_("Largest message accepted, in bytes (default 134217728)"),
	     "BYTES"},
	    {"max-connections",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &max_connections,
	     N_("Connections served at once, 0 for no limit (default 4096)"),
	     "N"},
	    {"max-connections-per-peer",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &max_connections_per_peer,
	     N_("Connections from one IP address, 0 for no limit (default 128); loopback "
		"addresses and local sockets are not counted"),
	     "N"},
	    {"max-queued-bytes",
	     0,
	     0,
	     G_OPTION_ARG_INT64,
	     &max_queued_bytes,
	     N_("Unsent output per connection before a peer that does not read is dropped, 0 for "
		"no limit (default 536870912)"),
	     "BYTES"},
	    {"max-pending-requests",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &max_pending_requests,
	     N_("Requests waiting to run per connection, 0 for no limit (default 4096)"),
	     "N"},
	    {"handshake-timeout",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &handshake_timeout,
	     N_("Seconds a new connection has to complete initialize/initialized, 0 for no limit "
		"(default 10)"),
	     "SECONDS"},
	    {"max-processes",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &max_processes,
	     N_("Processes per session, running or retained, 0 for no limit (default 1024)"),
	     "N"},
	    {"max-json-depth",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &max_json_depth,
	     N_("Deepest nesting of a message (default 64)"),
	     "N"},
	    {"pid-namespace",
	     0,
	     0,
	     G_OPTION_ARG_NONE,
	     &pid_namespace,
	     N_("Run each command in its own PID namespace (needs CAP_SYS_ADMIN)"),
	     NULL},
	    /* exec a supervisor per command instead of forking it from the spawn server */
	    {"no-spawn-server",
	     0,
	     G_OPTION_FLAG_HIDDEN,
	     G_OPTION_ARG_NONE,
	     &no_spawn_server,
	     NULL,
	     NULL},
	    {"verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, N_("Log more to stderr"), NULL},
	    {"version", 0, 0, G_OPTION_ARG_NONE, &version, N_("Show the version and exit"), NULL},
	    {NULL}};

	setlocale(LC_ALL, "");
	/* $ESD_LOCALEDIR: the build tree's catalogs, as for the plugins below */
	bindtextdomain(GETTEXT_PACKAGE,
		       g_getenv("ESD_LOCALEDIR") != NULL ? g_getenv("ESD_LOCALEDIR") : LOCALEDIR);
	bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
	textdomain(GETTEXT_PACKAGE);

	/*
	 * the plugins bring options of their own, so they are loaded before the
	 * command line is parsed: the directories and the config file are read
	 * from it first
	 */
	plugin_dirs_early = esd_config_prescan(argc, argv, "--plugins-dir");
	config_early = esd_config_prescan(argc, argv, "--config");
	g_log_set_writer_func(esd_main_log_writer, &verbose, NULL);
	server = g_object_new(ESD_TYPE_SERVER, NULL);
	plugin_context = erpc_registry_get_context(esd_server_get_registry(server));
	for (guint i = 0; plugin_dirs_early[i] != NULL; i++) {
		esd_main_check_plugins_dir(plugin_dirs_early[i]);
		esd_plugin_loader_add_dir(esd_server_get_loader(server),
					  plugin_dirs_early[i],
					  FALSE);
	}
	/*
	 * the directories that come with this binary, see esd-plugin-loader.c;
	 * the build tree's are named by the environment (meson devenv, the test
	 * suite), so that the binary holds no path of the tree it was built in
	 */
	build_plugindir = g_getenv("ESD_BUILD_PLUGINDIR");
	if (build_plugindir != NULL && build_plugindir[0] != '\0')
		esd_plugin_loader_add_dir_full(esd_server_get_loader(server),
					       build_plugindir,
					       ESD_PLUGIN_DIR_FLAG_SUBDIRS |
						   ESD_PLUGIN_DIR_FLAG_INSTALLED);
	else
		esd_plugin_loader_add_dir_full(esd_server_get_loader(server),
					       ESD_PLUGINDIR,
					       ESD_PLUGIN_DIR_FLAG_INSTALLED);
	supervisor = g_getenv("ESD_SUPERVISOR");
	if (supervisor != NULL && supervisor[0] != '\0')
		esd_spawn_set_supervisor(supervisor);
	/* transport plugins with a manifest load when the command line needs them */
	esd_plugin_loader_set_defer(esd_server_get_loader(server), TRUE);
	if (!esd_server_load_plugins(server, &error)) {
		g_printerr("%s: %s\n", g_get_prgname(), error->message);
		return EXIT_FAILURE;
	}
	esd_plugin_loader_load_deferred_for_args(esd_server_get_loader(server), argc, argv);

	context = g_option_context_new(NULL);
	/* TRANSLATORS: one line under the usage of --help */
	g_option_context_set_summary(
	    context,
	    _("Execution server for coding agents (Codex exec-server protocol)"));
	main_group = g_option_group_new(NULL, NULL, NULL, NULL, NULL);
	g_option_group_add_entries(main_group, entries);
	g_option_group_set_translation_domain(main_group, GETTEXT_PACKAGE);
	g_option_context_set_main_group(context, main_group);
	esd_main_add_plugin_groups(context, server);
	/* reported after the parse, so that --help works with a broken file */
	esd_main_load_config(server,
			     (const gchar *const *)config_early,
			     entries,
			     &listen_config,
			     &config_error);
	if (!g_option_context_parse(context, &argc, &argv, &error)) {
		g_printerr("%s: %s\n", g_get_prgname(), error->message);
		g_printerr(_("Run '%s --help' to see the options.\n"), g_get_prgname());
		/* a usage error, as for the reference (clap) */
		return 2;
	}
	/* an argument taken as the value of another option, as in --listen --plugins-dir */
	if (!g_strv_equal((const gchar *const *)plugin_dirs_early,
			  plugin_dirs != NULL ? (const gchar *const *)plugin_dirs
					      : (const gchar *const[]){NULL}) ||
	    g_strcmp0(config_path,
		      config_early[0] != NULL ? config_early[g_strv_length(config_early) - 1]
					      : NULL) != 0) {
		g_printerr(_("%s: --plugins-dir and --config must each be followed by their "
			     "value\n"),
			   g_get_prgname());
		return 2;
	}
	if (version) {
		g_print("execserverd %s (protocol %s, plugin ABI %u)\n",
			PACKAGE_VERSION,
			ESD_PROTOCOL_VERSION,
			(guint)ERPC_PLUGIN_ABI_VERSION);
		return EXIT_SUCCESS;
	}
	if (concurrent_requests < 1 || session_grace < 1 || process_retention < 1 ||
	    max_retained_output < 1 || max_message_size < 1024) {
		g_printerr(
		    _("%s: --concurrent-requests, --session-grace, --process-retention and "
		      "--max-retained-output must be at least 1, --max-message-size at least "
		      "1024\n"),
		    g_get_prgname());
		return EXIT_FAILURE;
	}
	if (config_error != NULL) {
		g_printerr("%s: %s\n", g_get_prgname(), config_error->message);
		return EXIT_FAILURE;
	}
	if (max_connections < 0 || max_connections_per_peer < 0 || max_queued_bytes < 0 ||
	    max_pending_requests < 0 || handshake_timeout < 0 || max_processes < 0 ||
	    max_json_depth < 1 || max_json_depth > 1024) {
		g_printerr(_("%s: the limits must not be negative and --max-json-depth is 1 to "
			     "1024\n"),
			   g_get_prgname());
		return EXIT_FAILURE;
	}
	if (idle_timeout < 0) {
		g_printerr(_("%s: --idle-timeout must not be negative\n"), g_get_prgname());
		return EXIT_FAILURE;
	}
	if (argc > 1) {
		g_printerr(_("%s: unexpected argument %s\n"), g_get_prgname(), argv[1]);
		return EXIT_FAILURE;
	}
	/* --listen replaces the config file's */
	if (listen == NULL)
		listen = g_steal_pointer(&listen_config);
	/* what plugins asked for (systemd's sockets) is served too; ws only by default */
	{
		GStrv uris =
		    esd_activation_listen_uris((const gchar *const *)listen,
					       erpc_context_get_listen_uris(plugin_context),
					       dbus);
		g_strfreev(listen);
		listen = uris;
		erpc_context_set_listen_uris(plugin_context, (const gchar *const *)listen);
	}
	if (list_plugins)
		esd_plugin_loader_load_deferred(esd_server_get_loader(server), NULL);
	esd_server_load_transports(server, (const gchar *const *)listen);
	/* listeners bound how long a connection may take to upgrade */
	{
		g_auto(GVariantDict) dict = G_VARIANT_DICT_INIT(NULL);
		g_variant_dict_insert(&dict, "handshake-timeout", "u", (guint32)handshake_timeout);
		listener_options = g_variant_ref_sink(g_variant_dict_end(&dict));
	}

	esd_spawn_set_pid_namespace(pid_namespace);
	esd_spawn_set_use_server(!no_spawn_server);
	/*
	 * streams move buffers of a few hundred kilobytes; served from the heap
	 * instead of fresh mappings, they cost no page faults each time
	 */
	esd_main_raise_fd_limit((guint)max_connections);
	mallopt(M_MMAP_THRESHOLD, 4 * 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, 8 * 1024 * 1024);
	signal(SIGPIPE, SIG_IGN);

	g_object_set(server,
		     "concurrent-requests",
		     (guint)concurrent_requests,
		     "session-grace",
		     (guint)session_grace,
		     "max-message-size",
		     (guint64)max_message_size,
		     "process-retention",
		     (guint)process_retention,
		     "max-retained-output",
		     (guint64)max_retained_output,
		     NULL);
	limits.max_connections = (guint)max_connections;
	limits.max_connections_per_peer = (guint)max_connections_per_peer;
	limits.max_queued_bytes = (guint64)max_queued_bytes;
	limits.max_pending_requests = (guint)max_pending_requests;
	limits.handshake_timeout = (guint)handshake_timeout;
	limits.max_processes = (guint)max_processes;
	limits.max_json_depth = (guint)max_json_depth;
	esd_server_set_limits(server, &limits);
	esd_server_set_listener_options(server, listener_options);
	/* the plugins check their options now; one that refuses them stops the daemon */
	if (!esd_server_setup(server, &error)) {
		g_printerr("%s: %s\n", g_get_prgname(), error->message);
		return EXIT_FAILURE;
	}
	if (list_plugins) {
		esd_main_list_plugins(server);
		return EXIT_SUCCESS;
	}

	loop = g_main_loop_new(NULL, FALSE);
	self.loop = loop;
	self.server = server;
	self.dbus = dbus;
	g_signal_connect(server, "finished", G_CALLBACK(esd_main_finished_cb), &self);
	g_unix_signal_add(SIGTERM, esd_main_signal_cb, &self);
	g_unix_signal_add(SIGINT, esd_main_signal_cb, &self);

	for (guint i = 0; listen[i] != NULL; i++) {
		ErpcListener *listener = esd_server_listen(server, listen[i], &error);
		if (listener == NULL) {
			g_printerr("%s: %s\n", g_get_prgname(), error->message);
			return EXIT_FAILURE;
		}
		/* the first stdout line is the bound address, as clients expect */
		if (erpc_listener_get_announce(listener) &&
		    erpc_listener_get_bound_uri(listener) != NULL) {
			g_print("%s\n", erpc_listener_get_bound_uri(listener));
			fflush(stdout);
		}
	}
	if (dbus) {
		dbus_service = esd_dbus_service_new(server, (guint)idle_timeout);
		esd_dbus_service_set_allow_sandboxed(dbus_service, dbus_allow_sandboxed);
		g_signal_connect(dbus_service, "quit", G_CALLBACK(esd_main_dbus_quit_cb), &self);
		esd_dbus_service_start(dbus_service);
	}
	/* a plugin opened from now on has its directories checked afresh */
	esd_plugin_loader_end_startup(esd_server_get_loader(server));
	/* what the sandbox must keep from commands, now that every listener is up */
	esd_host_doors_close(&(EsdHostDoorsConfig){
	    .secret_files = erpc_context_get_hidden_paths(plugin_context),
	    .tcp_authenticated = erpc_context_get_tcp_authenticated(plugin_context),
	});
	g_main_loop_run(loop);
	g_clear_object(&dbus_service);
	esd_server_shutdown(server);
	return self.exit_code;
}
