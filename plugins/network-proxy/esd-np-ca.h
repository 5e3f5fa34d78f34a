/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>
#include <openssl/ssl.h>

G_BEGIN_DECLS

typedef struct _EsdNpCa EsdNpCa;

EsdNpCa *
esd_np_ca_new(const gchar *dir, GError **error);
EsdNpCa *
esd_np_ca_ref(EsdNpCa *self);
void
esd_np_ca_unref(EsdNpCa *self);
const gchar *
esd_np_ca_get_bundle(EsdNpCa *self);
void
esd_np_ca_remove_bundle(EsdNpCa *self);
SSL_CTX *
esd_np_ca_server_context(EsdNpCa *self, const gchar *host, GError **error);
SSL_CTX *
esd_np_ca_client_context(EsdNpCa *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdNpCa, esd_np_ca_unref)

G_END_DECLS
