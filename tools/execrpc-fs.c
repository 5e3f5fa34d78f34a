/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "execrpc-tool.h"

/*
 * execrpc fs: files of the environment. Relative remote paths are resolved
 * against the environment's working directory. cat and put stream through
 * file handles in 1 MiB blocks, with a progress bar on a terminal.
 */

#define EXECRPC_FS_BLOCK (1024 * 1024)

typedef struct {
	gboolean recursive;
	gboolean force;
	gboolean parents;
} ExecrpcFsOptions;

/* the remote path for @arg, absolute */
static gchar *
execrpc_fs_path(ExecrpcTool *tool, const gchar *arg)
{
	JsonObject *info = erpc_client_get_environment_info(tool->client);
	const gchar *cwd_uri = NULL;
	g_autofree gchar *cwd = NULL;

	if (g_path_is_absolute(arg))
		return g_strdup(arg);
	if (info != NULL && erpc_json_get_string(info, "cwd", NULL, &cwd_uri, NULL) &&
	    cwd_uri != NULL)
		cwd = erpc_uri_to_path(cwd_uri, NULL);
	return g_build_filename(cwd != NULL ? cwd : "/", arg, NULL);
}

static gint
execrpc_fs_fail(const gchar *path, const GError *error)
{
	execrpc_tool_print_error(path, error);
	return EXECRPC_EXIT_FAILURE;
}

static gint
execrpc_fs_compare_names(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

static gint
execrpc_fs_ls(ExecrpcTool *tool, const gchar *path)
{
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) entries = NULL;
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	GAsyncResult *slot = NULL;

	erpc_client_fs_read_directory_async(tool->client,
					    path,
					    NULL,
					    execrpc_tool_result_cb,
					    &slot);
	res = execrpc_tool_wait(&slot);
	entries = erpc_client_fs_read_directory_finish(tool->client, res, &error);
	if (entries == NULL)
		return execrpc_fs_fail(path, error);
	for (guint i = 0; i < json_array_get_length(entries); i++) {
		JsonNode *node = json_array_get_element(entries, i);
		const gchar *name = NULL;
		gboolean is_dir = FALSE;
		if (!JSON_NODE_HOLDS_OBJECT(node))
			continue;
		erpc_json_get_string(json_node_get_object(node), "fileName", NULL, &name, NULL);
		erpc_json_get_boolean(json_node_get_object(node),
				      "isDirectory",
				      FALSE,
				      &is_dir,
				      NULL);
		if (name != NULL)
			g_ptr_array_add(names, g_strconcat(name, is_dir ? "/" : "", NULL));
	}
	g_ptr_array_sort(names, execrpc_fs_compare_names);
	for (guint i = 0; i < names->len; i++)
		g_print("%s\n", (const gchar *)g_ptr_array_index(names, i));
	return EXIT_SUCCESS;
}

static JsonObject *
execrpc_fs_metadata(ExecrpcTool *tool, const gchar *path, GError **error)
{
	g_autoptr(GAsyncResult) res = NULL;
	GAsyncResult *slot = NULL;

	erpc_client_fs_get_metadata_async(tool->client, path, NULL, execrpc_tool_result_cb, &slot);
	res = execrpc_tool_wait(&slot);
	return erpc_client_fs_get_metadata_finish(tool->client, res, error);
}

static gint
execrpc_fs_stat(ExecrpcTool *tool, const gchar *path)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) metadata = execrpc_fs_metadata(tool, path, &error);
	g_autoptr(GDateTime) modified = NULL;
	g_autofree gchar *when = NULL;
	gboolean is_dir = FALSE;
	gboolean is_file = FALSE;
	gboolean is_link = FALSE;
	gint64 size = 0;
	gint64 mtime = 0;

	if (metadata == NULL)
		return execrpc_fs_fail(path, error);
	erpc_json_get_boolean(metadata, "isDirectory", FALSE, &is_dir, NULL);
	erpc_json_get_boolean(metadata, "isFile", FALSE, &is_file, NULL);
	erpc_json_get_boolean(metadata, "isSymlink", FALSE, &is_link, NULL);
	erpc_json_get_int64(metadata, "size", 0, &size, NULL);
	erpc_json_get_int64(metadata, "modifiedAtMs", 0, &mtime, NULL);
	modified = g_date_time_new_from_unix_utc(mtime / 1000);
	if (modified != NULL)
		when = g_date_time_format_iso8601(modified);
	g_print("%s: %s\n", _("Path"), path);
	g_print("%s: %s%s\n",
		_("Type"),
		is_dir	  ? _("directory")
		: is_file ? _("file")
			  : _("other"),
		is_link ? _(" (symbolic link)") : "");
	g_print("%s: %" G_GINT64_FORMAT "\n", _("Size"), size);
	if (when != NULL)
		g_print("%s: %s\n", _("Modified"), when);
	return EXIT_SUCCESS;
}

static gchar *
execrpc_fs_open(ExecrpcTool *tool, const gchar *path, gboolean replace, GError **error)
{
	g_autoptr(GAsyncResult) res = NULL;
	GAsyncResult *slot = NULL;

	erpc_client_fs_open_async(tool->client, path, replace, NULL, execrpc_tool_result_cb, &slot);
	res = execrpc_tool_wait(&slot);
	return erpc_client_fs_open_finish(tool->client, res, error);
}

static gboolean
execrpc_fs_close(ExecrpcTool *tool, const gchar *handle, GError **error)
{
	g_autoptr(GAsyncResult) res = NULL;
	GAsyncResult *slot = NULL;

	erpc_client_fs_close_async(tool->client, handle, NULL, execrpc_tool_result_cb, &slot);
	res = execrpc_tool_wait(&slot);
	return erpc_client_fs_close_finish(tool->client, res, error);
}

static gint
execrpc_fs_cat(ExecrpcTool *tool, const gchar *path)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) metadata = execrpc_fs_metadata(tool, path, &error);
	g_autofree gchar *handle = NULL;
	ExecrpcProgress progress;
	guint64 offset = 0;
	gint64 size = 0;
	gboolean eof = FALSE;

	if (metadata == NULL)
		return execrpc_fs_fail(path, error);
	erpc_json_get_int64(metadata, "size", 0, &size, NULL);
	handle = execrpc_fs_open(tool, path, FALSE, &error);
	if (handle == NULL)
		return execrpc_fs_fail(path, error);
	/* the content goes to stdout: the bar only when stdout is not the terminal */
	execrpc_progress_init(&progress,
			      tool->stderr_tty && !tool->stdout_tty,
			      STDERR_FILENO,
			      (guint64)size);
	while (!eof) {
		g_autoptr(GAsyncResult) res = NULL;
		g_autoptr(GBytes) block = NULL;
		GAsyncResult *slot = NULL;
		gsize len = 0;
		const guint8 *data;

		erpc_client_fs_read_block_async(tool->client,
						handle,
						offset,
						EXECRPC_FS_BLOCK,
						NULL,
						execrpc_tool_result_cb,
						&slot);
		res = execrpc_tool_wait(&slot);
		block = erpc_client_fs_read_block_finish(tool->client, res, &eof, &error);
		if (block == NULL) {
			execrpc_progress_finish(&progress);
			return execrpc_fs_fail(path, error);
		}
		data = g_bytes_get_data(block, &len);
		while (len > 0) {
			gssize n = write(STDOUT_FILENO, data, len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				execrpc_progress_finish(&progress);
				g_printerr("execrpc: %s: %s\n", _("stdout"), g_strerror(errno));
				return EXECRPC_EXIT_FAILURE;
			}
			data += n;
			len -= (gsize)n;
			offset += (guint64)n;
		}
		if (g_bytes_get_size(block) == 0)
			eof = TRUE;
		execrpc_progress_update(&progress, offset);
	}
	execrpc_progress_finish(&progress);
	if (!execrpc_fs_close(tool, handle, &error))
		return execrpc_fs_fail(path, error);
	return EXIT_SUCCESS;
}

/* reads up to a block from @fd; 0 at the end */
static gssize
execrpc_fs_read_local(gint fd, guint8 *buf, gsize size)
{
	gsize got = 0;
	while (got < size) {
		gssize n = read(fd, buf + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (gsize)n;
	}
	return (gssize)got;
}

static gint
execrpc_fs_put(ExecrpcTool *tool, const gchar *local, const gchar *path)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *handle = NULL;
	g_autofree guint8 *buf = g_malloc(EXECRPC_FS_BLOCK);
	gboolean from_stdin = g_strcmp0(local, "-") == 0;
	ExecrpcProgress progress;
	guint64 offset = 0;
	struct stat st = {0};
	gint fd = from_stdin ? STDIN_FILENO : open(local, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) != 0) {
		g_printerr("execrpc: %s: %s\n", local, g_strerror(errno));
		return EXECRPC_EXIT_FAILURE;
	}
	handle = execrpc_fs_open(tool, path, TRUE, &error);
	if (handle == NULL) {
		if (!from_stdin)
			close(fd);
		return execrpc_fs_fail(path, error);
	}
	execrpc_progress_init(&progress,
			      tool->stdout_tty && S_ISREG(st.st_mode),
			      STDOUT_FILENO,
			      (guint64)st.st_size);
	for (;;) {
		g_autoptr(GAsyncResult) res = NULL;
		g_autoptr(GBytes) block = NULL;
		GAsyncResult *slot = NULL;
		gssize n = execrpc_fs_read_local(fd, buf, EXECRPC_FS_BLOCK);

		if (n < 0) {
			execrpc_progress_finish(&progress);
			g_printerr("execrpc: %s: %s\n", local, g_strerror(errno));
			if (!from_stdin)
				close(fd);
			return EXECRPC_EXIT_FAILURE;
		}
		if (n == 0)
			break;
		block = g_bytes_new(buf, (gsize)n);
		erpc_client_fs_write_block_async(tool->client,
						 handle,
						 offset,
						 block,
						 NULL,
						 execrpc_tool_result_cb,
						 &slot);
		res = execrpc_tool_wait(&slot);
		if (!erpc_client_fs_write_block_finish(tool->client, res, &error)) {
			execrpc_progress_finish(&progress);
			if (!from_stdin)
				close(fd);
			return execrpc_fs_fail(path, error);
		}
		offset += (guint64)n;
		execrpc_progress_update(&progress, offset);
	}
	execrpc_progress_finish(&progress);
	if (!from_stdin)
		close(fd);
	/* closing a replace handle puts the new content in place */
	if (!execrpc_fs_close(tool, handle, &error))
		return execrpc_fs_fail(path, error);
	return EXIT_SUCCESS;
}

static gint
execrpc_fs_simple(ExecrpcTool *tool,
		  const gchar *command,
		  const gchar *path,
		  const gchar *destination,
		  ExecrpcFsOptions *options)
{
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	GAsyncResult *slot = NULL;
	gboolean ok;

	if (g_strcmp0(command, "rm") == 0) {
		erpc_client_fs_remove_async(tool->client,
					    path,
					    options->recursive,
					    options->force,
					    NULL,
					    execrpc_tool_result_cb,
					    &slot);
		res = execrpc_tool_wait(&slot);
		ok = erpc_client_fs_remove_finish(tool->client, res, &error);
	} else if (g_strcmp0(command, "cp") == 0) {
		erpc_client_fs_copy_async(tool->client,
					  path,
					  destination,
					  options->recursive,
					  NULL,
					  execrpc_tool_result_cb,
					  &slot);
		res = execrpc_tool_wait(&slot);
		ok = erpc_client_fs_copy_finish(tool->client, res, &error);
	} else {
		erpc_client_fs_create_directory_async(tool->client,
						      path,
						      options->parents,
						      NULL,
						      execrpc_tool_result_cb,
						      &slot);
		res = execrpc_tool_wait(&slot);
		ok = erpc_client_fs_create_directory_finish(tool->client, res, &error);
	}
	return ok ? EXIT_SUCCESS : execrpc_fs_fail(path, error);
}

/* how many paths each subcommand takes */
static const struct {
	const gchar *name;
	gint args;
	const gchar *synopsis;
} execrpc_fs_commands[] = {
    {"ls", 1, N_("ls PATH")},
    {"cat", 1, N_("cat PATH")},
    {"put", 2, N_("put LOCAL-FILE|- PATH")},
    {"stat", 1, N_("stat PATH")},
    {"rm", 1, N_("rm [-r] [-f] PATH")},
    {"cp", 2, N_("cp [-r] SOURCE DESTINATION")},
    {"mkdir", 1, N_("mkdir [-p] PATH")},
};

gint
execrpc_tool_fs(ExecrpcTool *tool, gint argc, gchar **argv)
{
	ExecrpcFsOptions options = {0};
	g_autoptr(GOptionContext) context = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *path = NULL;
	g_autofree gchar *second = NULL;
	const gchar *command = argc > 1 ? argv[1] : NULL;
	gint index = -1;
	const GOptionEntry entries[] = {
	    {"recursive",
	     'r',
	     0,
	     G_OPTION_ARG_NONE,
	     &options.recursive,
	     N_("rm, cp: include directories and their content"),
	     NULL},
	    {"force",
	     'f',
	     0,
	     G_OPTION_ARG_NONE,
	     &options.force,
	     N_("rm: a missing path is not an error"),
	     NULL},
	    {"parents",
	     'p',
	     0,
	     G_OPTION_ARG_NONE,
	     &options.parents,
	     N_("mkdir: create missing parents too"),
	     NULL},
	    {NULL},
	};

	for (guint i = 0; command != NULL && i < G_N_ELEMENTS(execrpc_fs_commands); i++) {
		if (g_strcmp0(command, execrpc_fs_commands[i].name) == 0)
			index = (gint)i;
	}
	context = g_option_context_new(index >= 0 ? _(execrpc_fs_commands[index].synopsis)
						  : _("ls|cat|put|stat|rm|cp|mkdir …"));
	g_option_context_add_main_entries(context, entries, GETTEXT_PACKAGE);
	if (index < 0)
		return execrpc_tool_usage_error(context, _("unknown or missing fs command"));
	argc--;
	argv++;
	if (!g_option_context_parse(context, &argc, &argv, &error))
		return execrpc_tool_usage_error(context, error->message);
	if (argc - 1 != execrpc_fs_commands[index].args)
		return execrpc_tool_usage_error(context, _("wrong number of arguments"));
	if (!execrpc_tool_connect(tool))
		return EXECRPC_EXIT_FAILURE;

	if (g_strcmp0(command, "put") == 0) {
		path = execrpc_fs_path(tool, argv[2]);
		return execrpc_fs_put(tool, argv[1], path);
	}
	path = execrpc_fs_path(tool, argv[1]);
	if (g_strcmp0(command, "ls") == 0)
		return execrpc_fs_ls(tool, path);
	if (g_strcmp0(command, "cat") == 0)
		return execrpc_fs_cat(tool, path);
	if (g_strcmp0(command, "stat") == 0)
		return execrpc_fs_stat(tool, path);
	if (g_strcmp0(command, "cp") == 0)
		second = execrpc_fs_path(tool, argv[2]);
	return execrpc_fs_simple(tool, command, path, second, &options);
}
