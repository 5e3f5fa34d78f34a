/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esd-env-config-layers.h"

/*
 * The executor-local config layers of environmentConfig/read, as the
 * reference loads them (README.md has what was seen):
 *
 *   config:       system, user, project (root to cwd), legacy managed
 *   requirements: system requirements.toml, legacy managed
 *
 * Every file is read afresh on every call, never blocking (a FIFO is
 * refused after fstat) and never more than the size limit.
 */

/* project-local config may not choose where credentials go or what runs */
static const gchar *const esd_env_config_project_denylist[] = {
    "openai_base_url",
    "chatgpt_base_url",
    "apps_mcp_product_sku",
    "model_provider",
    "model_providers",
    "notify",
    "profile",
    "profiles",
    "experimental_realtime_webrtc_call_base_url",
    "experimental_realtime_ws_base_url",
    "otel",
    NULL,
};

typedef struct {
	gchar *source;
	gchar *base_dir;
	EsdEnvToml *doc;
	const EsdEnvTomlFuncs *toml;
} EsdEnvConfigLayer;

static void
esd_env_config_layer_free(EsdEnvConfigLayer *layer)
{
	g_free(layer->source);
	g_free(layer->base_dir);
	if (layer->doc != NULL)
		layer->toml->free(layer->doc);
	g_free(layer);
}

void
esd_env_config_request_free(EsdEnvConfigRequest *request)
{
	g_free(request->codex_home);
	g_free(request->system_dir);
	g_free(request->cwd);
	g_clear_pointer(&request->config_paths, g_ptr_array_unref);
	g_clear_pointer(&request->requirements_paths, g_ptr_array_unref);
	g_free(request);
}

/*
 * The reference is a musl build: the errors a file read can meet where musl
 * words them otherwise than glibc; the rest from strerrordesc_np(), never
 * translated.
 */
static const struct {
	gint errnum;
	const gchar *text;
} esd_env_config_musl_texts[] = {
    {ELOOP, "Symbolic link loop"},
    {ENAMETOOLONG, "Filename too long"},
    {EMFILE, "No file descriptors available"},
    {EIO, "I/O error"},
    {ENOMEM, "Out of memory"},
    {EOVERFLOW, "Value too large for data type"},
};

/* "No such file or directory (os error 2)", as the reference words OS errors */
static void
esd_env_config_set_errno(GError **error, gint errsv)
{
	const gchar *text = strerrordesc_np(errsv);

	for (guint i = 0; i < G_N_ELEMENTS(esd_env_config_musl_texts); i++) {
		if (esd_env_config_musl_texts[i].errnum == errsv)
			text = esd_env_config_musl_texts[i].text;
	}
	g_set_error(error,
		    G_IO_ERROR,
		    g_io_error_from_errno(errsv),
		    "%s (os error %d)",
		    text != NULL ? text : "Unknown error",
		    errsv);
}

/*
 * The reference's words for bytes that are not UTF-8 (Rust's Utf8Error):
 * the invalid sequence is as long as the valid start of one it begins
 * with, and one cut short by the end of the file is "incomplete".
 */
static void
esd_env_config_set_utf8_error(GError **error, const gchar *data, gsize len, const gchar *end)
{
	const guchar *p = (const guchar *)end;
	gsize index = (gsize)(end - data);
	gsize left = len - index;
	gsize need = p[0] >= 0xc2 && p[0] <= 0xdf   ? 2
		     : p[0] >= 0xe0 && p[0] <= 0xef ? 3
		     : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
						    : 1;
	gsize valid = 1;

	for (; valid < need && valid < left; valid++) {
		guchar lo = 0x80;
		guchar hi = 0xbf;

		/* the second byte's range excludes overlongs, surrogates, > U+10FFFF */
		if (valid == 1 && p[0] == 0xe0)
			lo = 0xa0;
		else if (valid == 1 && p[0] == 0xed)
			hi = 0x9f;
		else if (valid == 1 && p[0] == 0xf0)
			lo = 0x90;
		else if (valid == 1 && p[0] == 0xf4)
			hi = 0x8f;
		if (p[valid] < lo || p[valid] > hi)
			break;
	}
	if (need > 1 && valid == left && valid < need) {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_DATA,
			    "incomplete utf-8 byte sequence from index %" G_GSIZE_FORMAT,
			    index);
		return;
	}
	g_set_error(error,
		    G_IO_ERROR,
		    G_IO_ERROR_INVALID_DATA,
		    "invalid utf-8 sequence of %" G_GSIZE_FORMAT
		    " bytes from index %" G_GSIZE_FORMAT,
		    valid,
		    index);
}

/**
 * esd_env_config_read_text:
 * @path: a file
 * @max_bytes: the largest file accepted
 * @len: (out): its length
 * @error: return location for a #GError, or %NULL
 *
 * Reads a config file as UTF-8 text without blocking: the file is opened
 * non-blocking and refused unless fstat() says it is a regular file, so a
 * FIFO or a device is answered at once.
 *
 * Returns: (transfer full): the text, or %NULL with %G_IO_ERROR_NOT_FOUND
 *   when it does not exist, or another error
 */
gchar *
esd_env_config_read_text(const gchar *path, gsize max_bytes, gsize *len, GError **error)
{
	g_autofree gchar *data = NULL;
	struct stat st;
	gsize filled = 0;
	gsize size;
	const gchar *end = NULL;
	gint fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		esd_env_config_set_errno(error, errno);
		return NULL;
	}
	if (fstat(fd, &st) != 0) {
		esd_env_config_set_errno(error, errno);
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_NOT_REGULAR_FILE,
			    "path `%s` is not a file",
			    path);
		close(fd);
		return NULL;
	}
	if ((guint64)st.st_size > max_bytes) {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_FAILED,
			    "file is larger than the limit of %" G_GSIZE_FORMAT " bytes",
			    max_bytes);
		close(fd);
		return NULL;
	}
	/* one byte more than the limit tells a file that grew past it */
	size = (gsize)st.st_size + 1;
	data = g_malloc(size + 1);
	for (;;) {
		gssize n;

		if (filled == size) {
			if (size > max_bytes) {
				g_set_error(error,
					    G_IO_ERROR,
					    G_IO_ERROR_FAILED,
					    "file is larger than the limit of %" G_GSIZE_FORMAT
					    " bytes",
					    max_bytes);
				close(fd);
				return NULL;
			}
			size = MIN(size * 2, max_bytes + 1);
			data = g_realloc(data, size + 1);
		}
		n = read(fd, data + filled, size - filled);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			esd_env_config_set_errno(error, errno);
			close(fd);
			return NULL;
		}
		if (n == 0)
			break;
		filled += (gsize)n;
	}
	close(fd);
	data[filled] = '\0';
	/* a NUL is UTF-8 (the TOML parser refuses it, with its position) */
	for (const gchar *p = data; !g_utf8_validate_len(p, filled - (gsize)(p - data), &end);) {
		if (*end != '\0' || end == data + filled) {
			esd_env_config_set_utf8_error(error, data, filled, end);
			return NULL;
		}
		p = end + 1;
	}
	*len = filled;
	return g_steal_pointer(&data);
}

/* "LINE:COLUMN: what" as the Rust toml crate shows a parse error, which is
 * how the reference words one of a project file:
 *
 *   TOML parse error at line 2, column 7
 *     |
 *   2 | foo =
 *     |       ^
 *   what
 */
static gchar *
esd_env_config_parse_error_frame(const gchar *text, gsize len, const gchar *parse_error)
{
	g_autoptr(GString) out = g_string_new(NULL);
	g_autofree gchar *number = NULL;
	const gchar *what = strstr(parse_error, ": ");
	const gchar *line_start = text;
	const gchar *line_end;
	guint64 line = g_ascii_strtoull(parse_error, NULL, 10);
	const gchar *colon = strchr(parse_error, ':');
	guint64 column = colon != NULL ? g_ascii_strtoull(colon + 1, NULL, 10) : 0;
	gsize width;

	if (what == NULL || line == 0 || column == 0)
		return g_strdup(parse_error);
	for (guint64 i = 1; i < line && line_start < text + len; i++) {
		const gchar *nl = memchr(line_start, '\n', (gsize)(text + len - line_start));
		line_start = nl != NULL ? nl + 1 : text + len;
	}
	line_end = memchr(line_start, '\n', (gsize)(text + len - line_start));
	if (line_end == NULL)
		line_end = text + len;
	number = g_strdup_printf("%" G_GUINT64_FORMAT, line);
	width = strlen(number);
	g_string_append_printf(out,
			       "TOML parse error at line %" G_GUINT64_FORMAT
			       ", column %" G_GUINT64_FORMAT "\n",
			       line,
			       column);
	g_string_append_printf(out, "%*s|\n", (gint)(width + 1), "");
	g_string_append_printf(out, "%s | ", number);
	g_string_append_len(out, line_start, line_end - line_start);
	g_string_append_printf(out, "\n%*s|%*s^\n", (gint)(width + 1), "", (gint)column, "");
	g_string_append_printf(out, "%s\n", what + 2);
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/* the file as a document; NULL without an error when it does not exist */
static EsdEnvToml *
esd_env_config_load(const EsdEnvTomlFuncs *toml,
		    const gchar *path,
		    gsize max_bytes,
		    const gchar *what,
		    gboolean parse_prefix,
		    GError **error)
{
	g_autoptr(GError) error_local = NULL;
	g_autofree gchar *text = NULL;
	g_autofree gchar *parse_error = NULL;
	EsdEnvToml *doc;
	gsize len = 0;

	text = esd_env_config_read_text(path, max_bytes, &len, &error_local);
	if (text == NULL) {
		if (g_error_matches(error_local, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
			return NULL;
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "Failed to read %s %s: %s",
			    what,
			    path,
			    error_local->message);
		return NULL;
	}
	doc = toml->parse(text, len, &parse_error);
	if (doc == NULL) {
		if (parse_prefix) {
			g_autofree gchar *frame =
			    esd_env_config_parse_error_frame(text, len, parse_error);
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "Error parsing %s %s: %s",
				    what,
				    path,
				    frame);
		} else
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "%s:%s",
				    path,
				    parse_error);
		return NULL;
	}
	return doc;
}

static void
esd_env_config_add_layer(GPtrArray *layers,
			 const EsdEnvTomlFuncs *toml,
			 EsdEnvToml *doc,
			 gchar *source,
			 const gchar *file)
{
	EsdEnvConfigLayer *layer = g_new0(EsdEnvConfigLayer, 1);

	layer->toml = toml;
	layer->doc = doc;
	layer->source = source;
	layer->base_dir = g_path_get_dirname(file);
	g_ptr_array_add(layers, layer);
}

/* a .git (or other marker) counts when it is a file or a directory with
 * something in it: the reference takes an empty .git directory for none */
static gboolean
esd_env_config_marker_present(const gchar *path)
{
	struct stat st;
	g_autoptr(GDir) dir = NULL;

	if (stat(path, &st) != 0)
		return FALSE;
	if (!S_ISDIR(st.st_mode))
		return TRUE;
	dir = g_dir_open(path, 0, NULL);
	return dir != NULL && g_dir_read_name(dir) != NULL;
}

static gboolean
esd_env_config_is_dir(const gchar *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* @path and each parent, up to "/" */
static GPtrArray *
esd_env_config_ancestors(const gchar *path)
{
	GPtrArray *dirs = g_ptr_array_new_with_free_func(g_free);
	g_autofree gchar *dir = g_strdup(path);

	for (;;) {
		gchar *parent;

		g_ptr_array_add(dirs, g_strdup(dir));
		parent = g_path_get_dirname(dir);
		if (g_strcmp0(parent, dir) == 0) {
			g_free(parent);
			break;
		}
		g_free(dir);
		dir = parent;
	}
	return dirs;
}

/* the first of @docs (highest precedence first) that has @path as strings */
static gchar **
esd_env_config_lookup_strv(const EsdEnvTomlFuncs *toml,
			   EsdEnvToml *const *docs,
			   const gchar *const *path)
{
	for (guint i = 0; docs[i] != NULL; i++) {
		gchar **strv = toml->get_strv(docs[i], path);
		if (strv != NULL)
			return strv;
	}
	return NULL;
}

typedef struct {
	const EsdEnvTomlFuncs *toml;
	EsdEnvToml *const *docs; /* managed, user, system; NULL-terminated */
	GPtrArray *root_keys;	 /* the project root's trust keys */
	GPtrArray *repo_keys;	 /* the repository root's, or NULL */
} EsdEnvConfigTrust;

/* a directory's keys in the `projects` table: its canonical path first */
static GPtrArray *
esd_env_config_trust_keys(const gchar *dir)
{
	GPtrArray *keys = g_ptr_array_new_with_free_func(g_free);
	g_autofree gchar *canonical = realpath(dir, NULL);

	if (canonical != NULL)
		g_ptr_array_add(keys, g_strdup(canonical));
	if (canonical == NULL || g_strcmp0(canonical, dir) != 0)
		g_ptr_array_add(keys, g_strdup(dir));
	return keys;
}

/* the trust_level the first matching key has, NULL when none has one */
static gchar *
esd_env_config_trust_level(const EsdEnvConfigTrust *trust, GPtrArray *keys)
{
	for (guint i = 0; i < keys->len; i++) {
		const gchar *path[] = {"projects", g_ptr_array_index(keys, i), "trust_level", NULL};
		for (guint j = 0; trust->docs[j] != NULL; j++) {
			gchar *level = trust->toml->get_string(trust->docs[j], path);
			if (level != NULL)
				return level;
		}
	}
	return NULL;
}

/* trusted by its own entry, else the project root's, else the repository's */
static gboolean
esd_env_config_dir_trusted(const EsdEnvConfigTrust *trust, const gchar *dir)
{
	g_autoptr(GPtrArray) keys = esd_env_config_trust_keys(dir);
	g_autofree gchar *level = esd_env_config_trust_level(trust, keys);

	if (level == NULL)
		level = esd_env_config_trust_level(trust, trust->root_keys);
	if (level == NULL && trust->repo_keys != NULL)
		level = esd_env_config_trust_level(trust, trust->repo_keys);
	return g_strcmp0(level, "trusted") == 0;
}

/* the repository a checkout belongs to: a linked worktree's .git file
 * names <repo>/.git/worktrees/<name> */
static gchar *
esd_env_config_repo_root(const gchar *cwd)
{
	g_autoptr(GPtrArray) dirs = esd_env_config_ancestors(cwd);

	for (guint i = 0; i < dirs->len; i++) {
		const gchar *dir = g_ptr_array_index(dirs, i);
		g_autofree gchar *dot_git = g_build_filename(dir, ".git", NULL);
		g_autofree gchar *text = NULL;
		gsize len = 0;

		if (!esd_env_config_marker_present(dot_git))
			continue;
		text = esd_env_config_read_text(dot_git, 4096, &len, NULL);
		if (text != NULL && g_str_has_prefix(text, "gitdir:")) {
			g_autofree gchar *gitdir = g_strstrip(g_strdup(text + strlen("gitdir:")));
			g_autofree gchar *abs = g_path_is_absolute(gitdir)
						    ? g_strdup(gitdir)
						    : g_build_filename(dir, gitdir, NULL);
			g_autofree gchar *parent = g_path_get_dirname(abs);
			g_autofree gchar *parent_name = g_path_get_basename(parent);

			if (g_str_equal(parent_name, "worktrees")) {
				g_autofree gchar *common = g_path_get_dirname(parent);
				return g_path_get_dirname(common);
			}
		}
		return g_strdup(dir);
	}
	return NULL;
}

static gchar *
esd_env_config_project_root(const gchar *cwd, gchar **markers)
{
	g_autoptr(GPtrArray) dirs = NULL;

	if (markers[0] == NULL)
		return g_strdup(cwd);
	dirs = esd_env_config_ancestors(cwd);
	for (guint i = 0; i < dirs->len; i++) {
		const gchar *dir = g_ptr_array_index(dirs, i);
		for (guint j = 0; markers[j] != NULL; j++) {
			g_autofree gchar *marker = g_build_filename(dir, markers[j], NULL);
			if (esd_env_config_marker_present(marker))
				return g_strdup(dir);
		}
	}
	return g_strdup(cwd);
}

/* the trusted .codex/config.toml files from the project root down to cwd */
static gboolean
esd_env_config_add_project_layers(GPtrArray *layers,
				  const EsdEnvTomlFuncs *toml,
				  const EsdEnvConfigRequest *request,
				  EsdEnvToml *const *docs,
				  GError **error)
{
	const gchar *const markers_path[] = {"project_root_markers", NULL};
	const gchar *const default_markers[] = {".git", NULL};
	g_auto(GStrv) markers = esd_env_config_lookup_strv(toml, docs, markers_path);
	g_autofree gchar *root = NULL;
	g_autofree gchar *repo = esd_env_config_repo_root(request->cwd);
	g_autofree gchar *codex_home = realpath(request->codex_home, NULL);
	g_autoptr(GPtrArray) dirs = esd_env_config_ancestors(request->cwd);
	g_autoptr(GPtrArray) root_keys = NULL;
	g_autoptr(GPtrArray) repo_keys = NULL;
	EsdEnvConfigTrust trust = {toml, docs, NULL, NULL};
	guint n = 0;

	root = esd_env_config_project_root(request->cwd,
					   markers != NULL ? markers : (gchar **)default_markers);
	root_keys = esd_env_config_trust_keys(root);
	repo_keys = repo != NULL ? esd_env_config_trust_keys(repo) : NULL;
	trust.root_keys = root_keys;
	trust.repo_keys = repo_keys;

	/* the directories from cwd up to the root, taken root first */
	while (n < dirs->len && g_strcmp0(g_ptr_array_index(dirs, n), root) != 0)
		n++;
	n = MIN(n + 1, dirs->len);
	for (guint i = n; i > 0; i--) {
		const gchar *dir = g_ptr_array_index(dirs, i - 1);
		g_autofree gchar *dot_codex = g_build_filename(dir, ".codex", NULL);
		g_autofree gchar *dot_codex_real = NULL;
		g_autofree gchar *file = NULL;
		g_autoptr(GError) error_local = NULL;
		EsdEnvToml *doc;

		if (!esd_env_config_is_dir(dot_codex))
			continue;
		/* untrusted layers are loaded disabled by the reference: not returned */
		if (!esd_env_config_dir_trusted(&trust, dir))
			continue;
		dot_codex_real = realpath(dot_codex, NULL);
		if (g_strcmp0(dot_codex, request->codex_home) == 0 ||
		    (codex_home != NULL && g_strcmp0(dot_codex_real, codex_home) == 0))
			continue;
		file = g_build_filename(dot_codex, "config.toml", NULL);
		doc = esd_env_config_load(toml,
					  file,
					  request->max_bytes,
					  "project config file",
					  TRUE,
					  &error_local);
		if (error_local != NULL) {
			g_propagate_error(error, g_steal_pointer(&error_local));
			return FALSE;
		}
		if (doc == NULL)
			continue;
		for (guint k = 0; esd_env_config_project_denylist[k] != NULL; k++) {
			const gchar *path[] = {esd_env_config_project_denylist[k], NULL};
			toml->remove(doc, path);
		}
		{
			const gchar *path[] = {"features", "respect_system_proxy", NULL};
			toml->remove(doc, path);
		}
		esd_env_config_add_layer(layers,
					 toml,
					 doc,
					 g_strdup_printf("project (%s)", file),
					 file);
	}
	return TRUE;
}

static void
esd_env_config_write_uri(ErpcJsonWriter *writer, const gchar *member, const gchar *path)
{
	g_autofree gchar *uri = path != NULL ? erpc_path_to_uri(path) : NULL;

	erpc_json_writer_member(writer, member);
	if (uri != NULL)
		erpc_json_writer_string(writer, uri, -1);
	else
		erpc_json_writer_null(writer);
}

/* the layers projected to @paths; those that keep nothing are left out, and
 * the cloud index counts the kept layers below it */
static void
esd_env_config_write_stack(ErpcJsonWriter *writer,
			   const gchar *member,
			   GPtrArray *layers,
			   guint cloud_index,
			   GPtrArray *paths,
			   GString *kept)
{
	guint kept_below = 0;

	erpc_json_writer_member(writer, member);
	erpc_json_writer_begin_object(writer);
	erpc_json_writer_member(writer, "layers");
	erpc_json_writer_begin_array(writer);
	for (guint i = 0; i < layers->len; i++) {
		EsdEnvConfigLayer *layer = g_ptr_array_index(layers, i);
		g_autofree gchar *text = layer->toml->project(layer->doc, paths);

		if (text == NULL)
			continue;
		if (i < cloud_index)
			kept_below++;
		g_string_append_printf(kept, "%s%s", kept->len > 0 ? ", " : "", layer->source);
		erpc_json_writer_begin_object(writer);
		erpc_json_writer_member_string(writer, "source", layer->source);
		esd_env_config_write_uri(writer, "baseDir", layer->base_dir);
		erpc_json_writer_member_string(writer, "toml", text);
		erpc_json_writer_end_object(writer);
	}
	erpc_json_writer_end_array(writer);
	erpc_json_writer_member_uint(writer, "cloudInsertionIndex", kept_below);
	erpc_json_writer_end_object(writer);
}

/**
 * esd_env_config_find_codex_home:
 * @error: return location for a #GError, or %NULL
 *
 * `$CODEX_HOME`, which must be an existing directory, else `~/.codex`.
 *
 * Returns: (transfer full): the Codex home, or %NULL
 */
gchar *
esd_env_config_find_codex_home(GError **error)
{
	const gchar *env = g_getenv("CODEX_HOME");
	g_autofree gchar *real = NULL;

	if (env == NULL || env[0] == '\0')
		return g_build_filename(g_get_home_dir(), ".codex", NULL);
	real = realpath(env, NULL);
	if (real == NULL && errno == ENOENT) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "failed to find Codex home: CODEX_HOME points to \"%s\", but that "
			    "path does not exist",
			    env);
		return NULL;
	}
	if (real == NULL) {
		g_autoptr(GError) error_local = NULL;
		esd_env_config_set_errno(&error_local, errno);
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "failed to find Codex home: %s",
			    error_local->message);
		return NULL;
	}
	if (!esd_env_config_is_dir(real)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "failed to find Codex home: CODEX_HOME points to \"%s\", but that "
			    "path is not a directory",
			    env);
		return NULL;
	}
	return g_steal_pointer(&real);
}

static gboolean
esd_env_config_collect(const EsdEnvTomlFuncs *toml,
		       const EsdEnvConfigRequest *request,
		       GPtrArray *config,
		       guint *config_cloud,
		       GPtrArray *requirements,
		       guint *requirements_cloud,
		       GError **error)
{
	g_autofree gchar *system_file = g_build_filename(request->system_dir, "config.toml", NULL);
	g_autofree gchar *requirements_file =
	    g_build_filename(request->system_dir, "requirements.toml", NULL);
	g_autofree gchar *managed_file =
	    g_build_filename(request->system_dir, "managed_config.toml", NULL);
	g_autofree gchar *user_file = g_build_filename(request->codex_home, "config.toml", NULL);
	EsdEnvToml *system = NULL;
	EsdEnvToml *user = NULL;
	EsdEnvToml *managed = NULL;
	EsdEnvToml *system_requirements = NULL;
	EsdEnvToml *docs[4] = {NULL};
	guint n_docs = 0;
	gsize max = request->max_bytes;

	/* a missing file is an empty layer, which no projection keeps */
	system = esd_env_config_load(toml, system_file, max, "config file", FALSE, error);
	if (system == NULL && error != NULL && *error != NULL)
		return FALSE;
	if (system != NULL)
		esd_env_config_add_layer(config,
					 toml,
					 system,
					 g_strdup_printf("system (%s)", system_file),
					 system_file);
	/* cloud config goes above the system layer */
	*config_cloud = config->len;
	user = esd_env_config_load(toml, user_file, max, "config file", FALSE, error);
	if (user == NULL && error != NULL && *error != NULL)
		return FALSE;
	if (user != NULL)
		esd_env_config_add_layer(config,
					 toml,
					 user,
					 g_strdup_printf("user (%s)", user_file),
					 user_file);
	managed = esd_env_config_load(toml, managed_file, max, "config file", FALSE, error);
	if (managed == NULL && error != NULL && *error != NULL)
		return FALSE;

	/* the project boundary and trust come from managed, user, system */
	if (managed != NULL)
		docs[n_docs++] = managed;
	if (user != NULL)
		docs[n_docs++] = user;
	if (system != NULL)
		docs[n_docs++] = system;
	if (!esd_env_config_add_project_layers(config, toml, request, docs, error)) {
		if (managed != NULL)
			toml->free(managed);
		return FALSE;
	}

	system_requirements =
	    esd_env_config_load(toml, requirements_file, max, "requirements file", FALSE, error);
	if (system_requirements == NULL && error != NULL && *error != NULL) {
		if (managed != NULL)
			toml->free(managed);
		return FALSE;
	}
	if (system_requirements != NULL)
		esd_env_config_add_layer(requirements,
					 toml,
					 system_requirements,
					 g_strdup(requirements_file),
					 requirements_file);
	*requirements_cloud = requirements->len;
	if (managed != NULL) {
		esd_env_config_add_layer(requirements,
					 toml,
					 toml->legacy_requirements(managed),
					 g_strdup(managed_file),
					 managed_file);
		esd_env_config_add_layer(
		    config,
		    toml,
		    managed,
		    g_strdup_printf("legacy managed_config.toml (%s)", managed_file),
		    managed_file);
	}
	return TRUE;
}

/**
 * esd_env_config_read:
 * @toml: the TOML functions
 * @request: the request
 * @error: return location for a #GError, or %NULL
 *
 * Reads the layers and writes the result of environmentConfig/read. Blocks
 * on the file system: run it in a worker.
 *
 * Returns: (transfer full): the result's JSON, or %NULL
 */
GString *
esd_env_config_read(const EsdEnvTomlFuncs *toml, const EsdEnvConfigRequest *request, GError **error)
{
	g_autoptr(GPtrArray) config =
	    g_ptr_array_new_with_free_func((GDestroyNotify)esd_env_config_layer_free);
	g_autoptr(GPtrArray) requirements =
	    g_ptr_array_new_with_free_func((GDestroyNotify)esd_env_config_layer_free);
	g_autoptr(GError) error_local = NULL;
	g_autoptr(GString) kept = g_string_new(NULL);
	GString *out;
	ErpcJsonWriter writer;
	guint config_cloud = 0;
	guint requirements_cloud = 0;
	gchar hostname[256];

	if (!esd_env_config_collect(toml,
				    request,
				    config,
				    &config_cloud,
				    requirements,
				    &requirements_cloud,
				    &error_local)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "failed to load executor-local config: %s",
			    error_local->message);
		return NULL;
	}

	out = erpc_call_result_string_new(1024);
	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	esd_env_config_write_uri(&writer, "userHomeDir", g_get_home_dir());
	esd_env_config_write_uri(&writer, "codexHomeDir", request->codex_home);
	erpc_json_writer_member(&writer, "hostname");
	if (gethostname(hostname, sizeof(hostname) - 1) == 0) {
		hostname[sizeof(hostname) - 1] = '\0';
		erpc_json_writer_string(&writer, hostname, -1);
	} else {
		erpc_json_writer_null(&writer);
	}
	esd_env_config_write_stack(&writer,
				   "config",
				   config,
				   config_cloud,
				   request->config_paths,
				   kept);
	esd_env_config_write_stack(&writer,
				   "requirements",
				   requirements,
				   requirements_cloud,
				   request->requirements_paths,
				   kept);
	erpc_json_writer_end_object(&writer);
	g_info("environmentConfig/read in %s: %s",
	       request->cwd,
	       kept->len > 0 ? kept->str : "no layer");
	return out;
}
