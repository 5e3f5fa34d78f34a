/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gchar *
esd_test_find_shared_ancestor(const gchar *path);

G_END_DECLS
