/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <gmodule.h>

G_BEGIN_DECLS

/*
 * The TOML side of environmentConfig/read, in C++ on toml++ (esd-env-toml.cc)
 * behind this C interface. The plugin reaches it through a table of
 * functions that esd-env-toml-module.c loads on the first request, so that
 * a daemon that never reads executor config never maps libstdc++.
 */

/* a parsed TOML document, or one built from another (legacy requirements) */
typedef struct _EsdEnvToml EsdEnvToml;

/* documents nested deeper than this are refused, as the reference refuses
 * arrays nested more than 80 deep */
#define ESD_ENV_TOML_MAX_DEPTH 80

typedef struct {
	/* @error: (out): "LINE:COLUMN: what", the position 1-based */
	EsdEnvToml *(*parse)(const gchar *data, gsize len, gchar **error);
	void (*free)(EsdEnvToml *doc);
	/* @paths: of GStrv, each a non-empty key path; returns the projection
	 * as TOML text, or NULL when nothing of the document is selected */
	gchar *(*project)(const EsdEnvToml *doc, GPtrArray *paths);
	/* the string at @path (NULL-terminated keys), or NULL */
	gchar *(*get_string)(const EsdEnvToml *doc, const gchar *const *path);
	/* the array of strings at @path, or NULL when absent or of another type */
	gchar **(*get_strv)(const EsdEnvToml *doc, const gchar *const *path);
	/* removes the member at @path if there is one */
	void (*remove)(EsdEnvToml *doc, const gchar *const *path);
	/* `managed_config.toml` read as requirements (allowed_* lists) */
	EsdEnvToml *(*legacy_requirements)(const EsdEnvToml *managed);
} EsdEnvTomlFuncs;

#define ESD_ENV_TOML_FUNCS_SYMBOL "esd_env_toml_get_funcs"

G_MODULE_EXPORT const EsdEnvTomlFuncs *
esd_env_toml_get_funcs(void);

G_END_DECLS
