/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

#define ESD_TYPE_SHELL_SNAPSHOT_PLUGIN (esd_shell_snapshot_plugin_get_type())
G_DECLARE_FINAL_TYPE(EsdShellSnapshotPlugin,
		     esd_shell_snapshot_plugin,
		     ESD,
		     SHELL_SNAPSHOT_PLUGIN,
		     ErpcPlugin)

G_END_DECLS
