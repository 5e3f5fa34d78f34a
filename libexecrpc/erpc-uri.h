/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

gchar *
erpc_uri_to_path(const gchar *uri, GError **error);
gchar *
erpc_path_to_uri(const gchar *path);
gboolean
erpc_json_require_path(JsonObject *obj, const gchar *member, gchar **out, GError **error);
gboolean
erpc_json_get_path(JsonObject *obj, const gchar *member, gchar **out, GError **error);

G_END_DECLS
