/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <dlfcn.h>
#include <gio/gio.h>
#include <stdlib.h>

#include "erpc-toml-private.h"

/*
 * TOML through toml++, which is C++: it lives in the libexecrpc-toml module
 * (erpc-toml-module.cpp), opened the first time a config is read, so that
 * libexecrpc itself, and the daemon that links it, never need libstdc++.
 * libexecrpc loaded from the build tree opens the build tree's module.
 */

typedef char *(*ErpcTomlToJson)(const char *data, size_t len, char **error);
typedef void (*ErpcTomlFree)(char *text);

static ErpcTomlToJson erpc_toml_to_json;
static ErpcTomlFree erpc_toml_free;

/* $EXECRPC_TOML_MODULE (the build tree's, set by `meson devenv` and the
 * tests), else the installed one: no build-tree path is compiled in */
static gchar *
erpc_toml_module_path(void)
{
	const gchar *override = g_getenv("EXECRPC_TOML_MODULE");

	if (override != NULL && override[0] != '\0')
		return g_strdup(override);
	return g_build_filename(ERPC_TOML_MODULE_DIR, ERPC_TOML_MODULE_NAME, NULL);
}

/* fills the two entry points once; an error every time if the module is missing */
static gboolean
erpc_toml_load(GError **error)
{
	static gsize loaded = 0;
	static gchar *failure = NULL;

	if (g_once_init_enter(&loaded)) {
		g_autofree gchar *path = erpc_toml_module_path();
		void *handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);

		if (handle == NULL) {
			failure = g_strdup(dlerror());
		} else {
			erpc_toml_to_json =
			    (ErpcTomlToJson)dlsym(handle, "erpc_toml_module_to_json");
			erpc_toml_free = (ErpcTomlFree)dlsym(handle, "erpc_toml_module_free");
			if (erpc_toml_to_json == NULL || erpc_toml_free == NULL)
				failure = g_strdup_printf("%s is not the TOML module", path);
		}
		/* stays open: a module with C++ statics is not worth unloading */
		g_once_init_leave(&loaded, 1);
	}
	if (failure != NULL) {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_NOT_SUPPORTED,
			    "reading TOML needs libexecrpc's TOML module: %s",
			    failure);
		return FALSE;
	}
	return TRUE;
}

JsonNode *
_erpc_toml_parse(const gchar *data, gsize len, GError **error)
{
	g_autoptr(JsonParser) parser = NULL;
	char *json;
	char *failure = NULL;
	gboolean ok;

	if (!erpc_toml_load(error))
		return NULL;
	json = erpc_toml_to_json(data, len, &failure);
	if (json == NULL) {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_DATA,
			    "invalid TOML: %s",
			    failure != NULL ? failure : "out of memory");
		erpc_toml_free(failure);
		return NULL;
	}
	parser = json_parser_new_immutable();
	ok = json_parser_load_from_data(parser, json, -1, error);
	erpc_toml_free(json);
	if (!ok)
		return NULL;
	return json_parser_steal_root(parser);
}
