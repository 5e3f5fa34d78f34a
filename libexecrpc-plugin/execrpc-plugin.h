/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

/* the one header plugins include: the plugin API, tied to the daemon's
 * build, on top of the protocol library <execrpc.h> */
#define __EXECRPC_PLUGIN_H_INSIDE__

#include <execrpc.h>

#include "erpc-call.h"
#include "erpc-context.h"
#include "erpc-launch.h"
#include "erpc-listener.h"
#include "erpc-plugin-version.h"
#include "erpc-plugin.h"
#include "erpc-registry.h"
#include "erpc-sandbox-helper.h"
#include "erpc-sandbox.h"
#include "erpc-session.h"

#undef __EXECRPC_PLUGIN_H_INSIDE__
