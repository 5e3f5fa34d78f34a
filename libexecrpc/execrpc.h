/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

/* the one header clients include; plugins include <execrpc-plugin.h>, which
 * includes this one */
#define __EXECRPC_H_INSIDE__

#include "erpc-base64.h"
#include "erpc-client-fs.h"
#include "erpc-client-process.h"
#include "erpc-client-services.h"
#include "erpc-client.h"
#include "erpc-connection.h"
#include "erpc-discovery-cache.h"
#include "erpc-environment-manager.h"
#include "erpc-error.h"
#include "erpc-json-writer.h"
#include "erpc-json.h"
#include "erpc-line-transport.h"
#include "erpc-message.h"
#include "erpc-transport.h"
#include "erpc-uri.h"
#include "erpc-version.h"

#undef __EXECRPC_H_INSIDE__
