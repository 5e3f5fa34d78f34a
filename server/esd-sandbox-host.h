/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

#include "esd-sandbox-policy.h"

G_BEGIN_DECLS

#define ESD_TYPE_SANDBOX_HOST (esd_sandbox_host_get_type())
G_DECLARE_FINAL_TYPE(EsdSandboxHost, esd_sandbox_host, ESD, SANDBOX_HOST, ErpcSandbox)

ErpcSandbox *
esd_sandbox_host_new(void);
const EsdSandboxPolicy *
esd_sandbox_host_get_policy(EsdSandboxHost *self, ErpcSandboxPolicy *policy);

G_END_DECLS
