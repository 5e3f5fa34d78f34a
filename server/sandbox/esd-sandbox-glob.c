/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <gio/gio.h>
#include <string.h>
#include <sys/stat.h>

#include "esd-sandbox-glob.h"

/*
 * Glob patterns of sandbox entries, matched against whole absolute paths:
 * `*` and `?` stay within one component, `[...]` is a class (`!` or `^`
 * negates), `\` escapes, and a component that is exactly `**` matches any
 * number of components (at least one when it ends the pattern). Hidden
 * names match like any other. Matching is per component with a memo table,
 * so a hostile pattern costs time linear in the product of the lengths, never
 * exponential.
 *
 * Expansion scans from the longest literal directory prefix, down to a
 * bounded depth, without following symbolic links; a pattern whose literal
 * prefix is `/` is not scanned (the reference skips it too).
 */

/* p is at '['; returns the position after ']' with *matched set, or NULL if unclosed */
static const gchar *
esd_glob_class(const gchar *p, gchar c, gboolean *matched)
{
	const gchar *q = p + 1;
	const gchar *start;
	gboolean negate = FALSE;
	gboolean found = FALSE;

	if (*q == '!' || *q == '^') {
		negate = TRUE;
		q++;
	}
	start = q;
	while (*q != '\0' && (*q != ']' || q == start)) {
		guchar lo = (guchar)*q;
		guchar hi;
		if (lo == '\\' && q[1] != '\0')
			lo = (guchar) * ++q;
		hi = lo;
		if (q[1] == '-' && q[2] != ']' && q[2] != '\0') {
			q += 2;
			if (*q == '\\' && q[1] != '\0')
				q++;
			hi = (guchar)*q;
		}
		if ((guchar)c >= lo && (guchar)c <= hi)
			found = TRUE;
		q++;
	}
	if (*q != ']')
		return NULL;
	*matched = found != negate;
	return q + 1;
}

/* one pattern character against one name character; *next is where the pattern goes on */
static gboolean
esd_glob_char(const gchar *p, gchar c, const gchar **next)
{
	if (*p == '?') {
		*next = p + 1;
		return TRUE;
	}
	if (*p == '[') {
		gboolean matched = FALSE;
		const gchar *after = esd_glob_class(p, c, &matched);
		if (after != NULL) {
			*next = after;
			return matched;
		}
		/* an unclosed class is a literal `[` */
	}
	if (*p == '\\' && p[1] != '\0') {
		*next = p + 2;
		return p[1] == c;
	}
	*next = p + 1;
	return *p != '\0' && *p == c;
}

/* one component: `*` backtracks to the last star only, so this is O(n*m) */
static gboolean
esd_glob_match_component(const gchar *p, const gchar *s)
{
	const gchar *star_p = NULL;
	const gchar *star_s = NULL;

	while (*s != '\0') {
		const gchar *next = NULL;
		if (*p == '*') {
			while (*p == '*')
				p++;
			star_p = p;
			star_s = s;
			continue;
		}
		if (esd_glob_char(p, *s, &next)) {
			p = next;
			s++;
			continue;
		}
		if (star_p == NULL)
			return FALSE;
		p = star_p;
		s = ++star_s;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

typedef struct {
	gchar **pattern;
	gchar **path;
	guint n_pattern;
	guint n_path;
	guint8 *memo; /* 0 unknown, 1 no, 2 yes */
} EsdGlobState;

static gboolean
esd_glob_match_from(EsdGlobState *st, guint i, guint j)
{
	guint8 *slot = &st->memo[i * (st->n_path + 1) + j];
	gboolean result;

	if (*slot != 0)
		return *slot == 2;
	if (i == st->n_pattern) {
		result = j == st->n_path;
	} else if (g_strcmp0(st->pattern[i], "**") == 0) {
		if (i + 1 == st->n_pattern)
			result = j < st->n_path;
		else
			result = esd_glob_match_from(st, i + 1, j) ||
				 (j < st->n_path && esd_glob_match_from(st, i, j + 1));
	} else {
		result = j < st->n_path && esd_glob_match_component(st->pattern[i], st->path[j]) &&
			 esd_glob_match_from(st, i + 1, j + 1);
	}
	*slot = result ? 2 : 1;
	return result;
}

/* the non-empty components of an absolute path */
static gchar **
esd_glob_split(const gchar *path, guint *n)
{
	g_auto(GStrv) parts = g_strsplit(path, "/", -1);
	GPtrArray *kept = g_ptr_array_new();

	for (guint i = 0; parts[i] != NULL; i++) {
		if (parts[i][0] != '\0')
			g_ptr_array_add(kept, g_strdup(parts[i]));
	}
	*n = kept->len;
	g_ptr_array_add(kept, NULL);
	return (gchar **)g_ptr_array_free(kept, FALSE);
}

/**
 * esd_sandbox_glob_match:
 * @pattern: an absolute glob pattern
 * @path: an absolute, normalised path
 *
 * Returns: %TRUE if @pattern matches the whole of @path
 */
gboolean
esd_sandbox_glob_match(const gchar *pattern, const gchar *path)
{
	g_auto(GStrv) pattern_parts = NULL;
	g_auto(GStrv) path_parts = NULL;
	g_autofree guint8 *memo = NULL;
	EsdGlobState st = {NULL};

	g_return_val_if_fail(pattern != NULL && path != NULL, FALSE);

	pattern_parts = esd_glob_split(pattern, &st.n_pattern);
	path_parts = esd_glob_split(path, &st.n_path);
	memo = g_new0(guint8, (gsize)(st.n_pattern + 1) * (st.n_path + 1));
	st.pattern = pattern_parts;
	st.path = path_parts;
	st.memo = memo;
	return esd_glob_match_from(&st, 0, 0);
}

static gboolean
esd_glob_is_literal(const gchar *component)
{
	return strpbrk(component, "*?[\\") == NULL;
}

typedef struct {
	const gchar *pattern;
	guint max_depth;
	gboolean unbounded; /* the pattern has `**` */
	guint pattern_left; /* components below the search root */
	guint visits;
	GPtrArray *matches;
} EsdGlobScan;

static gboolean
esd_glob_scan_dir(EsdGlobScan *scan, const gchar *dir, guint depth, GError **error)
{
	g_autoptr(GDir) handle = g_dir_open(dir, 0, NULL);
	const gchar *name;

	/* an unreadable directory hides its contents from the sandbox as well */
	if (handle == NULL)
		return TRUE;
	while ((name = g_dir_read_name(handle)) != NULL) {
		g_autofree gchar *child = g_build_filename(dir, name, NULL);
		struct stat st;

		if (++scan->visits > ESD_SANDBOX_GLOB_MAX_VISITS) {
			g_set_error(error,
				    G_IO_ERROR,
				    G_IO_ERROR_FAILED,
				    "deny glob %s: more than %u entries to scan",
				    scan->pattern,
				    (guint)ESD_SANDBOX_GLOB_MAX_VISITS);
			return FALSE;
		}
		if (esd_sandbox_glob_match(scan->pattern, child)) {
			if (scan->matches->len >= ESD_SANDBOX_GLOB_MAX_MATCHES) {
				g_set_error(error,
					    G_IO_ERROR,
					    G_IO_ERROR_FAILED,
					    "deny glob %s matches more than %u paths",
					    scan->pattern,
					    (guint)ESD_SANDBOX_GLOB_MAX_MATCHES);
				return FALSE;
			}
			g_ptr_array_add(scan->matches, g_strdup(child));
		}
		if (depth >= scan->max_depth || (!scan->unbounded && depth >= scan->pattern_left))
			continue;
		if (lstat(child, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		if (!esd_glob_scan_dir(scan, child, depth + 1, error))
			return FALSE;
	}
	return TRUE;
}

/**
 * esd_sandbox_glob_expand:
 * @pattern: an absolute glob pattern
 * @max_depth: how many directory levels below the literal prefix to scan
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full) (element-type utf8): the existing paths that
 *   @pattern matches, or %NULL with @error set when there are too many
 */
GPtrArray *
esd_sandbox_glob_expand(const gchar *pattern, guint max_depth, GError **error)
{
	g_autoptr(GPtrArray) matches = g_ptr_array_new_with_free_func(g_free);
	g_auto(GStrv) parts = NULL;
	g_autoptr(GString) root = g_string_new(NULL);
	EsdGlobScan scan = {pattern, max_depth, FALSE, 0, 0, NULL};
	guint n = 0;
	guint literal = 0;

	g_return_val_if_fail(pattern != NULL && g_path_is_absolute(pattern), NULL);

	parts = esd_glob_split(pattern, &n);
	while (literal < n && esd_glob_is_literal(parts[literal])) {
		g_string_append_c(root, '/');
		g_string_append(root, parts[literal]);
		literal++;
	}
	if (literal == n) {
		/* no wildcard at all: the path itself, if it exists */
		struct stat st;
		if (lstat(root->str, &st) == 0)
			g_ptr_array_add(matches, g_strdup(root->str));
		return g_steal_pointer(&matches);
	}
	if (literal == 0) {
		g_debug("not scanning the whole file system for deny glob %s", pattern);
		return g_steal_pointer(&matches);
	}
	for (guint i = literal; i < n; i++) {
		if (g_strcmp0(parts[i], "**") == 0)
			scan.unbounded = TRUE;
	}
	scan.pattern_left = n - literal;
	scan.matches = matches;
	if (!esd_glob_scan_dir(&scan, root->str, 1, error))
		return NULL;
	return g_steal_pointer(&matches);
}
