/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

#include "esd-env-toml.h"

G_BEGIN_DECLS

/* what one environmentConfig/read needs, owned by the request */
typedef struct {
	gchar *codex_home;	       /* resolved, see esd_env_config_find_codex_home() */
	gchar *system_dir;	       /* config.toml, requirements.toml, managed_config.toml */
	gchar *cwd;		       /* need not exist */
	GPtrArray *config_paths;       /* of GStrv */
	GPtrArray *requirements_paths; /* of GStrv */
	gsize max_bytes;	       /* the largest file read */
} EsdEnvConfigRequest;

void
esd_env_config_request_free(EsdEnvConfigRequest *request);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdEnvConfigRequest, esd_env_config_request_free)

gchar *
esd_env_config_find_codex_home(GError **error);

gchar *
esd_env_config_read_text(const gchar *path, gsize max_bytes, gsize *len, GError **error);

GString *
esd_env_config_read(const EsdEnvTomlFuncs *toml,
		    const EsdEnvConfigRequest *request,
		    GError **error);

G_END_DECLS
