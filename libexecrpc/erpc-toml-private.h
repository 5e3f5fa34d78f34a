/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* a TOML document as a JSON object, parsed by the libexecrpc-toml module */
JsonNode *
_erpc_toml_parse(const gchar *data, gsize len, GError **error);

G_END_DECLS
