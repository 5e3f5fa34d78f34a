/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* what the filter restricts beyond the rules every sandboxed command gets */
typedef enum {
	ESD_SECCOMP_FLAG_NONE = 0,
	ESD_SECCOMP_NETWORK_RESTRICTED = 1 << 0, /* AF_UNIX stream sockets, no connect() */
	/* with RESTRICTED, the managed network of a private namespace whose loopback holds the
	 * proxy's listeners: IPv4/IPv6 stream sockets and connect(), no new AF_UNIX socket */
	ESD_SECCOMP_NETWORK_MANAGED = 1 << 1,
	/* with MANAGED, the proxy's UDP relays are on that loopback too: IPv4/IPv6 datagram
	 * sockets, and sendto(2) with an address */
	ESD_SECCOMP_NETWORK_DATAGRAMS = 1 << 2,
} EsdSeccompFlags;

#define ESD_SECCOMP_FLAGS_ALL                                                                      \
	(ESD_SECCOMP_NETWORK_RESTRICTED | ESD_SECCOMP_NETWORK_MANAGED |                            \
	 ESD_SECCOMP_NETWORK_DATAGRAMS)

/* one row of the rule table: the system call it restricts and why */
typedef struct {
	const gchar *syscall; /* the libseccomp name, e.g. "ioctl" */
	const gchar *reason;  /* never empty; what the rule denies and the CVE or risk behind it */
} EsdSeccompRow;

/* builds the seccomp program of a sandboxed command, for bwrap --seccomp: a memfd
 * (close-on-exec, at offset 0, sealed against writes, resizing and further seals) holding
 * the classic BPF program, or -1 with @error set; refuses unless the running architecture
 * is the native x86_64 or aarch64 the table was written for, and kills a process that
 * makes a call of another ABI (i386, x32) */
gint
esd_seccomp_build_fd(EsdSeccompFlags flags, GError **error);

/* the rule table, for tests and documentation; rows may repeat a system call */
const EsdSeccompRow *
esd_seccomp_rows(gsize *n_rows);

G_END_DECLS
