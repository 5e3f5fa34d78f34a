/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "esd-landlock.h"

#include <errno.h>
#include <execrpc.h>
#include <fcntl.h>
#include <linux/types.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * The UAPI of Landlock ABI 6, spelled out: Debian 12's headers stop at ABI 2.
 * Every member and constant is part of the kernel's stable interface.
 */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule	    445
#define SYS_landlock_restrict_self  446
#endif

#define ESD_LANDLOCK_CREATE_RULESET_VERSION	(1U << 0)
#define ESD_LANDLOCK_RULE_NET_PORT		2
#define ESD_LANDLOCK_ACCESS_NET_CONNECT_TCP	(1ULL << 1)
#define ESD_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define ESD_LANDLOCK_ABI_NET			4
#define ESD_LANDLOCK_ABI_SCOPE			6

typedef struct {
	__u64 handled_access_fs;
	__u64 handled_access_net;
	__u64 scoped;
} EsdLandlockRulesetAttr;

typedef struct {
	__u64 allowed_access;
	__u64 port;
} EsdLandlockNetPortAttr;

/* written at start-up, read by launches: both in the main thread */
static gboolean esd_landlock_abstract = FALSE;
static GArray *esd_landlock_ports = NULL; /* of guint16 */
static gint esd_landlock_ruleset = -1;

static void
esd_landlock_invalidate(void)
{
	if (esd_landlock_ruleset >= 0) {
		close(esd_landlock_ruleset);
		esd_landlock_ruleset = -1;
	}
}

/**
 * esd_landlock_hide_abstract_sockets:
 *
 * From now on a sandbox that shares the host's network namespace cannot
 * connect to abstract Unix sockets made outside it (its own still work).
 */
void
esd_landlock_hide_abstract_sockets(void)
{
	if (!esd_landlock_abstract)
		esd_landlock_invalidate();
	esd_landlock_abstract = TRUE;
}

/**
 * esd_landlock_hide_tcp_port:
 * @port: a TCP port
 *
 * From now on a sandbox that shares the host's network cannot connect to
 * @port, on any address: Landlock rules name ports, not addresses.
 */
void
esd_landlock_hide_tcp_port(guint16 port)
{
	if (esd_landlock_ports == NULL)
		esd_landlock_ports = g_array_new(FALSE, FALSE, sizeof(guint16));
	for (guint i = 0; i < esd_landlock_ports->len; i++) {
		if (g_array_index(esd_landlock_ports, guint16, i) == port)
			return;
	}
	g_array_append_val(esd_landlock_ports, port);
	esd_landlock_invalidate();
}

/**
 * esd_landlock_reset:
 *
 * Forgets everything hidden so far (for tests).
 */
void
esd_landlock_reset(void)
{
	esd_landlock_abstract = FALSE;
	g_clear_pointer(&esd_landlock_ports, g_array_unref);
	esd_landlock_invalidate();
}

/**
 * esd_landlock_abi:
 *
 * Returns: the Landlock ABI version of the running kernel, 0 without Landlock
 */
gint
esd_landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset,
			   NULL,
			   (size_t)0,
			   ESD_LANDLOCK_CREATE_RULESET_VERSION);
	return abi > 0 ? (gint)abi : 0;
}

static gboolean
esd_landlock_port_hidden(guint64 port)
{
	for (guint i = 0; esd_landlock_ports != NULL && i < esd_landlock_ports->len; i++) {
		if (g_array_index(esd_landlock_ports, guint16, i) == port)
			return TRUE;
	}
	return FALSE;
}

static gboolean
esd_landlock_fail(GError **error, const gchar *what, gint abi, gint needed)
{
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_INTERNAL,
		    "cannot keep %s out of a sandbox that shares the network: this kernel has "
		    "Landlock ABI %d, and %d is needed",
		    what,
		    abi,
		    needed);
	return FALSE;
}

/* Landlock rules allow: every port is allowed but the hidden ones */
static gboolean
esd_landlock_allow_ports(gint fd, GError **error)
{
	for (guint64 port = 0; port <= G_MAXUINT16; port++) {
		EsdLandlockNetPortAttr attr = {ESD_LANDLOCK_ACCESS_NET_CONNECT_TCP, port};

		if (esd_landlock_port_hidden(port))
			continue;
		if (syscall(SYS_landlock_add_rule, fd, ESD_LANDLOCK_RULE_NET_PORT, &attr, 0) != 0) {
			gint errsv = errno;
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "landlock_add_rule: %s",
				    g_strerror(errsv));
			return FALSE;
		}
	}
	return TRUE;
}

gint
esd_landlock_get_ruleset(GError **error)
{
	gboolean ports = esd_landlock_ports != NULL && esd_landlock_ports->len > 0;
	EsdLandlockRulesetAttr attr = {0};
	gint abi;
	gint fd;

	if (!esd_landlock_abstract && !ports)
		return -1;
	if (esd_landlock_ruleset >= 0)
		return esd_landlock_ruleset;
	abi = esd_landlock_abi();
	if (esd_landlock_abstract && abi < ESD_LANDLOCK_ABI_SCOPE) {
		esd_landlock_fail(error,
				  "the host's abstract Unix sockets",
				  abi,
				  ESD_LANDLOCK_ABI_SCOPE);
		return -1;
	}
	if (ports && abi < ESD_LANDLOCK_ABI_NET) {
		esd_landlock_fail(error, "this daemon's TCP listeners", abi, ESD_LANDLOCK_ABI_NET);
		return -1;
	}
	if (esd_landlock_abstract)
		attr.scoped = ESD_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
	if (ports)
		attr.handled_access_net = ESD_LANDLOCK_ACCESS_NET_CONNECT_TCP;
	fd = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0) {
		gint errsv = errno;
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "landlock_create_ruleset: %s",
			    g_strerror(errsv));
		return -1;
	}
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 ||
	    (ports && !esd_landlock_allow_ports(fd, error))) {
		if (error != NULL && *error == NULL)
			g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_INTERNAL, "fcntl failed");
		close(fd);
		return -1;
	}
	esd_landlock_ruleset = fd;
	return fd;
}

/**
 * esd_landlock_restrict_self:
 * @ruleset_fd: from esd_landlock_get_ruleset()
 *
 * Puts the calling thread into the ruleset's domain, with no_new_privs as
 * Landlock requires (the sandbox's seccomp filter sets it anyway). Only
 * system calls: safe between vfork and exec.
 *
 * Returns: 0, or the errno of the call that failed
 */
gint
esd_landlock_restrict_self(gint ruleset_fd)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return errno;
	if (syscall(SYS_landlock_restrict_self, ruleset_fd, 0) != 0)
		return errno;
	return 0;
}
