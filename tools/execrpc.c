/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <locale.h>
#include <unistd.h>

#include "execrpc-tool.h"

/*
 * execrpc: a command-line client of execserverd. Global options choose the
 * environment (a URL, a spawned stdio daemon, or an id of the config file);
 * the subcommand does the rest.
 */

typedef struct {
	gchar *url;
	gboolean stdio;
	gchar *env;
	gchar *config;
	gchar *server;
	gchar *token_file;
	gchar **headers;
	gchar *ca_file;
	gint timeout;
	gboolean verbose;
	gboolean json;
} ExecrpcOptions;

static void
execrpc_options_clear(ExecrpcOptions *options)
{
	g_free(options->url);
	g_free(options->env);
	g_free(options->config);
	g_free(options->server);
	g_free(options->token_file);
	g_strfreev(options->headers);
	g_free(options->ca_file);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(ExecrpcOptions, execrpc_options_clear)

static void
execrpc_tool_clear(ExecrpcTool *tool)
{
	if (tool->client != NULL)
		erpc_client_close(tool->client);
	g_clear_object(&tool->client);
	g_clear_object(&tool->manager);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(ExecrpcTool, execrpc_tool_clear)

void
execrpc_tool_result_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	GAsyncResult **slot = user_data;
	*slot = g_object_ref(res);
}

GAsyncResult *
execrpc_tool_wait(GAsyncResult **slot)
{
	while (*slot == NULL)
		g_main_context_iteration(NULL, TRUE);
	return g_steal_pointer(slot);
}

void
execrpc_tool_print_error(const gchar *context, const GError *error)
{
	if (context != NULL)
		g_printerr("execrpc: %s: %s\n", context, error->message);
	else
		g_printerr("execrpc: %s\n", error->message);
}

gint
execrpc_tool_usage_error(GOptionContext *context, const gchar *message)
{
	g_autofree gchar *help = g_option_context_get_help(context, TRUE, NULL);
	g_printerr("execrpc: %s\n\n%s", message, help);
	return EXECRPC_EXIT_USAGE;
}

/* $EXECRPC_SERVER, set to the build tree's daemon by meson devenv and the tests */
static gchar *
execrpc_tool_default_server(void)
{
	const gchar *env = g_getenv("EXECRPC_SERVER");

	if (env != NULL && env[0] != '\0')
		return g_strdup(env);
	return g_strdup("execserverd");
}

static gboolean
execrpc_tool_read_token(ErpcClient *client, const gchar *path, GError **error)
{
	g_autofree gchar *token = NULL;

	if (!g_file_get_contents(path, &token, NULL, error)) {
		g_prefix_error(error, _("cannot read the token file: "));
		return FALSE;
	}
	g_strstrip(token);
	if (token[0] == '\0') {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_DATA,
			    _("the token file %s is empty"),
			    path);
		return FALSE;
	}
	erpc_client_set_bearer_token(client, token);
	memset(token, 0, strlen(token));
	return TRUE;
}

static gboolean
execrpc_tool_add_headers(ErpcClient *client, gchar **headers, GError **error)
{
	for (guint i = 0; headers != NULL && headers[i] != NULL; i++) {
		const gchar *colon = strchr(headers[i], ':');
		g_autofree gchar *name = NULL;
		g_autofree gchar *value = NULL;

		if (colon == NULL) {
			g_set_error(error,
				    G_IO_ERROR,
				    G_IO_ERROR_INVALID_ARGUMENT,
				    _("a header must look like \"Name: value\""));
			return FALSE;
		}
		name = g_strndup(headers[i], colon - headers[i]);
		value = g_strstrip(g_strdup(colon + 1));
		if (!erpc_client_add_header(client, g_strstrip(name), value, error))
			return FALSE;
	}
	return TRUE;
}

/* --config, else Codex's $CODEX_HOME/environments.toml (see ErpcEnvironmentManager) */
static gboolean
execrpc_tool_load_environments(ExecrpcTool *tool, ExecrpcOptions *options, GError **error)
{
	g_autofree gchar *server =
	    options->server != NULL ? g_strdup(options->server) : execrpc_tool_default_server();
	const gchar *argv[] = {server, "--listen", "stdio", NULL};

	tool->manager = erpc_environment_manager_new();
	erpc_environment_manager_set_local_command(tool->manager, argv);
	if (options->config != NULL)
		return erpc_environment_manager_load_file(tool->manager, options->config, error);
	return erpc_environment_manager_load_codex_home(tool->manager, NULL, error);
}

static ErpcClient *
execrpc_tool_make_client(ExecrpcTool *tool, ExecrpcOptions *options, GError **error)
{
	g_autoptr(ErpcClient) client = NULL;

	if (options->url == NULL && !options->stdio) {
		ErpcClient *configured;
		if (!execrpc_tool_load_environments(tool, options, error))
			return NULL;
		configured =
		    erpc_environment_manager_get_environment(tool->manager, options->env, error);
		return configured != NULL ? g_object_ref(configured) : NULL;
	}
	if (options->stdio) {
		g_autofree gchar *server = options->server != NULL ? g_strdup(options->server)
								   : execrpc_tool_default_server();
		const gchar *argv[] = {server, "--listen", "stdio", NULL};
		client = erpc_client_new_for_command(argv);
	} else {
		client = erpc_client_new(options->url);
	}
	erpc_client_set_client_name(client, "execrpc");
	if (options->timeout > 0)
		erpc_client_set_connect_timeout(client, (guint)options->timeout * 1000);
	if (options->token_file != NULL &&
	    !execrpc_tool_read_token(client, options->token_file, error))
		return NULL;
	if (!execrpc_tool_add_headers(client, options->headers, error))
		return NULL;
	if (options->ca_file != NULL) {
		g_autoptr(GTlsDatabase) database = g_tls_file_database_new(options->ca_file, error);
		if (database == NULL)
			return NULL;
		erpc_client_set_tls_database(client, database);
	}
	return g_steal_pointer(&client);
}

gboolean
execrpc_tool_connect(ExecrpcTool *tool)
{
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	GAsyncResult *slot = NULL;

	erpc_client_connect_async(tool->client, NULL, execrpc_tool_result_cb, &slot);
	res = execrpc_tool_wait(&slot);
	if (!erpc_client_connect_finish(tool->client, res, &error)) {
		g_printerr(_("execrpc: cannot connect to %s: %s\n"),
			   erpc_client_get_url(tool->client),
			   error->message);
		return FALSE;
	}
	return TRUE;
}

static void
execrpc_tool_print_info(ExecrpcTool *tool, JsonObject *info)
{
	JsonObject *shell = NULL;
	JsonObject *capabilities = NULL;
	const gchar *version = NULL;
	const gchar *cwd = NULL;
	const gchar *platform = NULL;
	g_autofree gchar *cwd_path = NULL;

	erpc_json_get_string(info, "executorVersion", "0.0.0", &version, NULL);
	erpc_json_get_string(info, "cwd", NULL, &cwd, NULL);
	erpc_json_get_string(info, "platformOs", NULL, &platform, NULL);
	if (cwd != NULL)
		cwd_path = erpc_uri_to_path(cwd, NULL);
	/* TRANSLATORS: one line of `execrpc info` */
	g_print("%s: %s\n", _("Environment"), erpc_client_get_url(tool->client));
	g_print("%s: %s\n", _("Session"), erpc_client_get_session_id(tool->client));
	g_print("%s: %s\n", _("Executor version"), version);
	if (erpc_json_get_object(info, "shell", &shell, NULL) && shell != NULL) {
		const gchar *name = NULL;
		const gchar *path = NULL;
		erpc_json_get_string(shell, "name", "", &name, NULL);
		erpc_json_get_string(shell, "path", "", &path, NULL);
		g_print("%s: %s (%s)\n", _("Shell"), name, path);
	}
	if (cwd_path != NULL)
		g_print("%s: %s\n", _("Working directory"), cwd_path);
	if (platform != NULL)
		g_print("%s: %s\n", _("Platform"), platform);
	if (erpc_json_get_object(info, "capabilities", &capabilities, NULL) &&
	    capabilities != NULL) {
		g_autoptr(GList) names = json_object_get_members(capabilities);
		g_print("%s:", _("Capabilities"));
		names = g_list_sort(names, (GCompareFunc)g_strcmp0);
		for (GList *l = names; l != NULL; l = l->next) {
			gboolean value = FALSE;
			if (erpc_json_get_boolean(capabilities, l->data, FALSE, &value, NULL) &&
			    value)
				g_print(" %s", (const gchar *)l->data);
		}
		g_print("\n");
	}
}

static gint
execrpc_tool_info(ExecrpcTool *tool, gboolean json)
{
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) info = NULL;
	GAsyncResult *slot = NULL;

	erpc_client_get_info_async(tool->client, NULL, execrpc_tool_result_cb, &slot);
	res = execrpc_tool_wait(&slot);
	info = erpc_client_get_info_finish(tool->client, res, &error);
	if (info == NULL) {
		execrpc_tool_print_error("environment/info", error);
		return EXECRPC_EXIT_FAILURE;
	}
	if (json) {
		g_autoptr(JsonNode) node = json_node_new(JSON_NODE_OBJECT);
		g_autofree gchar *text = NULL;
		json_node_set_object(node, info);
		text = json_to_string(node, TRUE);
		g_print("%s\n", text);
		return EXIT_SUCCESS;
	}
	execrpc_tool_print_info(tool, info);
	return EXIT_SUCCESS;
}

static gint
execrpc_tool_status(ExecrpcTool *tool)
{
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *status = NULL;
	GAsyncResult *slot = NULL;

	erpc_client_get_status_async(tool->client, NULL, execrpc_tool_result_cb, &slot);
	res = execrpc_tool_wait(&slot);
	status = erpc_client_get_status_finish(tool->client, res, &error);
	if (status == NULL) {
		execrpc_tool_print_error("environment/status", error);
		return EXECRPC_EXIT_FAILURE;
	}
	g_print("%s: %s\n", erpc_client_get_url(tool->client), status);
	return EXIT_SUCCESS;
}

/* the configured environments and what is known of them, without connecting */
static gint
execrpc_tool_envs(ExecrpcTool *tool, ExecrpcOptions *options)
{
	g_autoptr(GError) error = NULL;
	g_auto(GStrv) ids = NULL;
	const gchar *default_id;

	if (!execrpc_tool_load_environments(tool, options, &error)) {
		execrpc_tool_print_error(NULL, error);
		return EXECRPC_EXIT_FAILURE;
	}
	ids = erpc_environment_manager_list_ids(tool->manager);
	default_id = erpc_environment_manager_get_default_id(tool->manager);
	for (guint i = 0; ids[i] != NULL; i++) {
		ErpcClient *client =
		    erpc_environment_manager_get_environment(tool->manager, ids[i], NULL);
		ErpcEnvironmentStatus status =
		    erpc_environment_manager_get_status(tool->manager, ids[i], NULL);
		g_autoptr(GEnumClass) klass = g_type_class_ref(ERPC_TYPE_ENVIRONMENT_STATUS);
		g_print("%s%s\t%s\t%s\n",
			ids[i],
			g_strcmp0(ids[i], default_id) == 0 ? "*" : "",
			client != NULL ? erpc_client_get_url(client) : "?",
			g_enum_get_value(klass, (gint)status)->value_nick);
	}
	return EXIT_SUCCESS;
}

static gint
execrpc_tool_dispatch(ExecrpcTool *tool, ExecrpcOptions *options, gint argc, gchar **argv)
{
	const gchar *command = argv[0];
	g_autoptr(GError) error = NULL;

	if (argc > 1 && (g_strcmp0(command, "info") == 0 || g_strcmp0(command, "status") == 0 ||
			 g_strcmp0(command, "envs") == 0)) {
		g_printerr(_("execrpc: %s takes no arguments\n"), command);
		return EXECRPC_EXIT_USAGE;
	}

	if (g_strcmp0(command, "envs") == 0)
		return execrpc_tool_envs(tool, options);
	tool->client = execrpc_tool_make_client(tool, options, &error);
	if (tool->client == NULL) {
		execrpc_tool_print_error(NULL, error);
		return EXECRPC_EXIT_USAGE;
	}
	if (g_strcmp0(command, "info") == 0)
		return execrpc_tool_connect(tool) ? execrpc_tool_info(tool, options->json)
						  : EXECRPC_EXIT_FAILURE;
	if (g_strcmp0(command, "status") == 0)
		return execrpc_tool_connect(tool) ? execrpc_tool_status(tool)
						  : EXECRPC_EXIT_FAILURE;
	if (g_strcmp0(command, "run") == 0)
		return execrpc_tool_run(tool, argc, argv);
	return execrpc_tool_fs(tool, argc, argv);
}

int
main(int argc, char **argv)
{
	g_auto(ExecrpcOptions) options = {0};
	g_auto(ExecrpcTool) tool = {0};
	g_autoptr(GOptionContext) context = NULL;
	g_autoptr(GError) error = NULL;
	const gchar *command;
	gboolean version = FALSE;
	const GOptionEntry entries[] = {
	    {"url",
	     'u',
	     0,
	     G_OPTION_ARG_STRING,
	     &options.url,
	     /* TRANSLATORS: --url */
	     N_("The server, ws://HOST:PORT or wss://HOST:PORT"),
	     "URL"},
	    {"stdio",
	     0,
	     0,
	     G_OPTION_ARG_NONE,
	     &options.stdio,
	     N_("Start a private execserverd and talk to it over its stdio"),
	     NULL},
	    {"env",
	     'E',
	     0,
	     G_OPTION_ARG_STRING,
	     &options.env,
	     N_("The environment of the config file to use (default: its default)"),
	     "ID"},
	    {"config",
	     0,
	     0,
	     G_OPTION_ARG_FILENAME,
	     &options.config,
	     N_("The environments.toml to read (default: $CODEX_HOME/environments.toml)"),
	     "FILE"},
	    {"server",
	     0,
	     0,
	     G_OPTION_ARG_FILENAME,
	     &options.server,
	     N_("The execserverd binary for --stdio"),
	     "PATH"},
	    {"token-file",
	     0,
	     0,
	     G_OPTION_ARG_FILENAME,
	     &options.token_file,
	     N_("Send the bearer token in FILE (servers started with --ws-auth)"),
	     "FILE"},
	    {"header",
	     'H',
	     0,
	     G_OPTION_ARG_STRING_ARRAY,
	     &options.headers,
	     N_("Add a header to the WebSocket upgrade (repeatable)"),
	     "'NAME: VALUE'"},
	    {"ca-file",
	     0,
	     0,
	     G_OPTION_ARG_FILENAME,
	     &options.ca_file,
	     N_("Trust the certificates in FILE for wss://"),
	     "FILE"},
	    {"timeout",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &options.timeout,
	     N_("Seconds a connection attempt may take"),
	     "SECONDS"},
	    {"json",
	     0,
	     0,
	     G_OPTION_ARG_NONE,
	     &options.json,
	     N_("Print the result of info as JSON"),
	     NULL},
	    {"verbose",
	     'v',
	     0,
	     G_OPTION_ARG_NONE,
	     &options.verbose,
	     N_("Show debug messages"),
	     NULL},
	    {"version", 0, 0, G_OPTION_ARG_NONE, &version, N_("Show the version and exit"), NULL},
	    {NULL},
	};

	setlocale(LC_ALL, "");
	/* $ESD_LOCALEDIR: the build tree's catalogs */
	bindtextdomain(GETTEXT_PACKAGE,
		       g_getenv("ESD_LOCALEDIR") != NULL ? g_getenv("ESD_LOCALEDIR") : LOCALEDIR);
	bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
	textdomain(GETTEXT_PACKAGE);

	/* TRANSLATORS: the synopsis of execrpc */
	context = g_option_context_new(_("COMMAND [ARGS…]"));
	g_option_context_set_summary(
	    context,
	    _("Commands:\n"
	      "  info                     describe the environment\n"
	      "  status                   check that the environment is ready\n"
	      "  envs                     list the configured environments\n"
	      "  run [--tty] -- CMD…      run a command, with its exit code\n"
	      "  fs ls|cat|put|stat|rm|cp|mkdir …   work with files"));
	g_option_context_add_main_entries(context, entries, GETTEXT_PACKAGE);
	g_option_context_set_strict_posix(context, TRUE);
	if (!g_option_context_parse(context, &argc, &argv, &error))
		return execrpc_tool_usage_error(context, error->message);
	if (version) {
		g_print("execrpc %s (libexecrpc %s, protocol %s)\n",
			PACKAGE_VERSION,
			ERPC_VERSION,
			ESD_PROTOCOL_VERSION);
		return EXIT_SUCCESS;
	}
	if (options.verbose)
		g_setenv("G_MESSAGES_DEBUG", "execrpc", FALSE);
	if (argc < 2)
		return execrpc_tool_usage_error(context, _("no command given"));
	command = argv[1];
	if (!g_strv_contains((const gchar *const[]){"info", "status", "run", "fs", "envs", NULL},
			     command)) {
		g_autofree gchar *msg = g_strdup_printf(_("unknown command %s"), command);
		return execrpc_tool_usage_error(context, msg);
	}
	if ((options.url != NULL) + options.stdio + (options.env != NULL) > 1)
		return execrpc_tool_usage_error(context,
						_("choose one of --url, --stdio and --env"));
	tool.verbose = options.verbose;
	tool.stdout_tty = isatty(STDOUT_FILENO);
	tool.stderr_tty = isatty(STDERR_FILENO);
	return execrpc_tool_dispatch(&tool, &options, argc - 1, argv + 1);
}
