/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* wss:// in tests: a self-signed certificate made with libcrypto */
void
esd_test_make_certificate(const gchar *cert_path, const gchar *key_path);

G_END_DECLS
