/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "esd-fs-sandbox.h"
#include "esd-sandbox-policy.h"

/*
 * The `sandbox` member of fs requests (PROTOCOL.md §6.4). It is checked for
 * shape like the reference deserialises it. Profiles that need no outer
 * sandbox (`disabled`, `external`, `managed` with an unrestricted file
 * system) run directly; a restricted file system runs in the sandboxed
 * helper (esd-fs-sandbox-run.c), and never unconfined.
 */

/**
 * esd_fs_sandbox_check:
 * @sandbox: the `sandbox` object of a request
 * @isolated: (out): set when the request must run in the sandboxed helper
 * @unavailable: (out): set when the sandbox is valid but cannot be provided
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE if the request may run, directly or (@isolated) in the
 *   helper; otherwise %FALSE with a -32602 @error, and @unavailable set when
 *   the answer needs `{"kind":"sandboxUnavailable"}`
 */
gboolean
esd_fs_sandbox_check(JsonObject *sandbox, gboolean *isolated, gboolean *unavailable, GError **error)
{
	const gchar *tmpdirs[] = {g_get_tmp_dir(), NULL};
	g_autofree gchar *cwd = g_get_current_dir();
	EsdSandboxDefaults defaults = {.cwd = cwd, .home = g_get_home_dir(), .tmpdirs = tmpdirs};
	g_autoptr(EsdSandboxPolicy) policy = NULL;

	*isolated = FALSE;
	*unavailable = FALSE;
	/* the same parser as process/start: the same errors, the same rules */
	policy = esd_sandbox_policy_new_from_json(sandbox, &defaults, error);
	if (policy == NULL) {
		*unavailable = esd_sandbox_error_convert(error);
		return FALSE;
	}
	*isolated = policy->profile == ESD_SANDBOX_PROFILE_MANAGED &&
		    policy->fs == ESD_SANDBOX_FS_RESTRICTED;
	return TRUE;
}
