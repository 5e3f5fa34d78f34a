/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <dlfcn.h>
#include <execrpc-plugin.h>

#include "esd-env-toml-module.h"

/*
 * The C++ half (esd-env-toml.cc, toml++ and libstdc++) is a module of its
 * own next to the plugin's file, opened on the first environmentConfig/read:
 * mapping libstdc++ at start-up costs every daemon about half a millisecond
 * (plugins/env-config/README.md). It stays loaded once opened.
 */

static const EsdEnvTomlFuncs *esd_env_toml_module_funcs = NULL;
static gchar *esd_env_toml_module_error = NULL;

/* the directory of the file this function was loaded from */
static gchar *
esd_env_toml_module_dir(void)
{
	Dl_info info = {0};

	if (dladdr((gpointer)esd_env_toml_module_dir, &info) == 0 || info.dli_fname == NULL)
		return NULL;
	return g_path_get_dirname(info.dli_fname);
}

static void
esd_env_toml_module_load(void)
{
	g_autofree gchar *dir = esd_env_toml_module_dir();
	g_autofree gchar *path = NULL;
	void *module;
	gpointer symbol = NULL;
	const EsdEnvTomlFuncs *(*get_funcs)(void);

	if (dir == NULL) {
		esd_env_toml_module_error = g_strdup("cannot find the directory of the plugin");
		return;
	}
	path = g_build_filename(dir, ESD_ENV_TOML_MODULE_NAME, NULL);
	/*
	 * dlopen(), not g_module_open(): GModule holds its lock across dlopen(),
	 * and libsoup's constructor takes it under the loader's lock. Never
	 * closed: C++ static state must not go away under a running worker.
	 */
	module = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (module == NULL) {
		const gchar *reason = dlerror();
		esd_env_toml_module_error = g_strdup(reason != NULL ? reason : path);
		return;
	}
	symbol = dlsym(module, ESD_ENV_TOML_FUNCS_SYMBOL);
	if (symbol == NULL) {
		esd_env_toml_module_error =
		    g_strdup_printf("%s: no %s", path, ESD_ENV_TOML_FUNCS_SYMBOL);
		return;
	}
	get_funcs = (const EsdEnvTomlFuncs *(*)(void))symbol;
	esd_env_toml_module_funcs = get_funcs();
}

/**
 * esd_env_toml_module_get:
 * @error: return location for a #GError, or %NULL
 *
 * Opens the TOML module on the first call. Safe in any thread.
 *
 * Returns: (transfer none): its functions, or %NULL when it cannot be loaded
 */
const EsdEnvTomlFuncs *
esd_env_toml_module_get(GError **error)
{
	static gsize once = 0;

	if (g_once_init_enter(&once)) {
		esd_env_toml_module_load();
		g_once_init_leave(&once, 1);
	}
	if (esd_env_toml_module_funcs == NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "cannot load the TOML module: %s",
			    esd_env_toml_module_error);
		return NULL;
	}
	return esd_env_toml_module_funcs;
}
