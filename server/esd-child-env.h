/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

gchar **
esd_child_env_build(JsonObject *env, JsonObject *policy, gboolean tty, GError **error);
gboolean
esd_child_env_is_non_inheritable(const gchar *name);

G_END_DECLS
