/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-env-toml.h"

G_BEGIN_DECLS

#define ESD_ENV_TOML_MODULE_NAME "libesd-env-config-toml.so"

const EsdEnvTomlFuncs *
esd_env_toml_module_get(GError **error);

G_END_DECLS
