/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

/*
 * Fuzzes the TOML half of environmentConfig/read (plugins/env-config/
 * esd-env-toml.cc): a config.toml as toml++ parses it, its projection to
 * key paths and the TOML text written back. The first line of an input is
 * the key paths (';' between paths, '|' between the keys of one, at most
 * 8), the rest is the file. Besides memory errors and crashes (a stack
 * overflow on deep nesting) it aborts when
 *
 * - a refused file has no "LINE:COLUMN: " error;
 * - the projection written back is not TOML toml++ accepts, or projecting
 *   that text again with the same paths gives another text (the layout
 *   must be stable, as a client merges layers by reading them back);
 * - the lookups used for trust and root markers disagree with the text.
 */

#include "config.h"

#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esd-env-toml.h"

#define FUZZ_MAX_PATHS 8

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void G_GNUC_NORETURN
fuzz_fail(const gchar *what, const gchar *text, const gchar *detail)
{
	fprintf(stderr,
		"fuzz-env-toml: %s\n--- text ---\n%s\n--- detail ---\n%s\n",
		what,
		text,
		detail);
	abort();
}

static GPtrArray *
fuzz_paths(const gchar *spec, gsize len)
{
	GPtrArray *paths = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
	g_autofree gchar *line = g_strndup(spec, len);
	g_auto(GStrv) each = g_strsplit(line, ";", FUZZ_MAX_PATHS);

	for (guint i = 0; each[i] != NULL; i++) {
		const gchar *empty_key[] = {"", NULL};
		g_ptr_array_add(paths,
				each[i][0] == '\0' ? g_strdupv((gchar **)empty_key)
						   : g_strsplit(each[i], "|", 16));
	}
	if (paths->len == 0) {
		const gchar *mcp[] = {"mcp_servers", NULL};
		g_ptr_array_add(paths, g_strdupv((gchar **)mcp));
	}
	return paths;
}

static gboolean
fuzz_error_well_formed(const gchar *error)
{
	guint64 line = 0;
	const gchar *p = error;
	gchar *end = NULL;

	line = g_ascii_strtoull(p, &end, 10);
	if (end == p || *end != ':')
		return FALSE;
	p = end + 1;
	g_ascii_strtoull(p, &end, 10);
	return end != p && g_str_has_prefix(end, ": ") && line > 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const EsdEnvTomlFuncs *toml = esd_env_toml_get_funcs();
	const gchar *text = (const gchar *)data;
	const gchar *newline = memchr(text, '\n', size);
	gsize spec_len = newline != NULL ? (gsize)(newline - text) : 0;
	const gchar *body = newline != NULL ? newline + 1 : text;
	gsize body_len = size - (gsize)(body - text);
	g_autoptr(GPtrArray) paths = fuzz_paths(text, spec_len);
	g_autofree gchar *error = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *again_out = NULL;
	g_autofree gchar *again_error = NULL;
	EsdEnvToml *doc;
	EsdEnvToml *again;
	EsdEnvToml *legacy;

	doc = toml->parse(body, body_len, &error);
	if (doc == NULL) {
		if (error == NULL || !fuzz_error_well_formed(error))
			fuzz_fail("a refused file without a position", body, error);
		return 0;
	}
	out = toml->project(doc, paths);
	for (guint i = 0; i < paths->len; i++) {
		const gchar *const *path = g_ptr_array_index(paths, i);
		g_autofree gchar *str = toml->get_string(doc, path);
		g_auto(GStrv) strv = toml->get_strv(doc, path);

		if (str != NULL && !g_utf8_validate(str, -1, NULL))
			fuzz_fail("a string that is not UTF-8", body, str);
		for (guint j = 0; strv != NULL && strv[j] != NULL; j++) {
			if (!g_utf8_validate(strv[j], -1, NULL))
				fuzz_fail("a string that is not UTF-8", body, strv[j]);
		}
	}
	legacy = toml->legacy_requirements(doc);
	g_free(toml->project(legacy, paths));
	toml->free(legacy);
	toml->free(doc);
	if (out == NULL)
		return 0;

	again = toml->parse(out, strlen(out), &again_error);
	if (again == NULL)
		fuzz_fail("the projection does not parse back", out, again_error);
	again_out = toml->project(again, paths);
	toml->free(again);
	if (g_strcmp0(again_out, out) != 0)
		fuzz_fail("projecting the projection changes it", out, again_out);
	return 0;
}
