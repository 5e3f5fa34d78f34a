/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc.h>

G_BEGIN_DECLS

/*
 * ESD_SANDBOX_ERROR_UNAVAILABLE: the sandbox asked for is well-formed but
 * cannot be provided here (`windowsSandboxLevel: mxc`, no usable bwrap). On
 * the wire it is -32602 with `data: {"kind": "sandboxUnavailable"}`:
 * esd_sandbox_error_convert() turns it into ERPC_ERROR_INVALID_PARAMS with the
 * same message and tells the caller to attach that data. Every other error
 * of this module is already in ERPC_ERROR.
 */
#define ESD_SANDBOX_ERROR (esd_sandbox_error_quark())

typedef enum {
	ESD_SANDBOX_ERROR_UNAVAILABLE,
} EsdSandboxError;

GQuark
esd_sandbox_error_quark(void);
gboolean
esd_sandbox_error_convert(GError **error);

typedef enum {
	ESD_SANDBOX_PROFILE_MANAGED,
	ESD_SANDBOX_PROFILE_DISABLED,
	ESD_SANDBOX_PROFILE_EXTERNAL,
} EsdSandboxProfile;

typedef enum {
	ESD_SANDBOX_NETWORK_RESTRICTED,
	ESD_SANDBOX_NETWORK_ENABLED,
} EsdSandboxNetwork;

typedef enum {
	ESD_SANDBOX_FS_UNRESTRICTED,
	ESD_SANDBOX_FS_RESTRICTED,
} EsdSandboxFs;

/* ordered by conflict precedence: on equally specific rules the larger wins */
typedef enum {
	ESD_SANDBOX_ACCESS_READ,
	ESD_SANDBOX_ACCESS_WRITE,
	ESD_SANDBOX_ACCESS_DENY, /* no access at all; also the wire's legacy `none` */
} EsdSandboxAccess;

/* the default depth of a deny-glob scan when the profile gives none */
#define ESD_SANDBOX_GLOB_SCAN_DEFAULT_DEPTH 8

/* names kept read-only (or masked when missing) inside every writable root */
#define ESD_SANDBOX_PROTECTED_NAMES                                                                \
	{                                                                                          \
		".git", ".codex", ".agents", ".aws", NULL                                          \
	}

typedef struct {
	gchar *path; /* absolute and normalised; NULL for a glob */
	EsdSandboxAccess access;
	gboolean is_glob;
	gchar *pattern;	  /* absolute pattern of a glob, NULL otherwise */
	gboolean special; /* came from a special path: may be missing on this host */
} EsdSandboxRule;

typedef struct {
	EsdSandboxProfile profile;
	EsdSandboxNetwork network; /* ENABLED for `disabled` profiles */
	EsdSandboxFs fs;	   /* UNRESTRICTED unless a managed profile restricts it */
	GPtrArray *rules;	   /* of EsdSandboxRule, in entry order; empty unless restricted */
	guint glob_scan_max_depth;
	gchar *cwd;  /* the policy cwd: policyContext.cwd, cwd, or the caller's default */
	gchar *home; /* userHomeDir or the caller's default; may be NULL */
} EsdSandboxPolicy;

/* what the caller knows when the request leaves a member out */
typedef struct {
	const gchar *cwd;  /* process cwd (process/start) or the daemon's cwd */
	const gchar *home; /* the daemon user's home */
	const gchar *const
	    *tmpdirs; /* e.g. {$TMPDIR, NULL}; used when temporaryDirectories is empty */
} EsdSandboxDefaults;

EsdSandboxPolicy *
esd_sandbox_policy_new_from_json(JsonObject *sandbox,
				 const EsdSandboxDefaults *defaults,
				 GError **error) G_GNUC_WARN_UNUSED_RESULT;
void
esd_sandbox_policy_free(EsdSandboxPolicy *policy);
gboolean
esd_sandbox_policy_is_isolated(const EsdSandboxPolicy *policy);
EsdSandboxAccess
esd_sandbox_policy_access_for(const EsdSandboxPolicy *policy, const gchar *abs_path);
gboolean
esd_sandbox_is_protected_name(const gchar *name);
guint
esd_sandbox_path_depth(const gchar *abs_path);
gboolean
esd_sandbox_path_has_prefix(const gchar *path, const gchar *prefix);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdSandboxPolicy, esd_sandbox_policy_free)

G_END_DECLS
