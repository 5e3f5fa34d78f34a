/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "esd-seccomp.h"

#include <errno.h>
#include <execrpc.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <unistd.h>

/* the architecture the table was written for: the clone flags are argument 0 on both */
#if defined(__x86_64__) && !defined(__ILP32__)
#define ESD_SECCOMP_ARCH      SCMP_ARCH_X86_64
#define ESD_SECCOMP_ARCH_NAME "x86_64"
#elif defined(__aarch64__) && !defined(__ILP32__)
#define ESD_SECCOMP_ARCH      SCMP_ARCH_AARCH64
#define ESD_SECCOMP_ARCH_NAME "aarch64"
#endif

G_DEFINE_AUTO_CLEANUP_FREE_FUNC(scmp_filter_ctx, seccomp_release, NULL)

typedef enum {
	ESD_SECCOMP_COND_ALWAYS,
	ESD_SECCOMP_COND_LOW32_EQ,    /* (arg & 0xffffffff) == datum, as the kernel truncates it */
	ESD_SECCOMP_COND_FLAG_SET,    /* (arg & datum) == datum */
	ESD_SECCOMP_COND_NE,	      /* arg != datum over all 64 bits */
	ESD_SECCOMP_COND_PERSONALITY, /* arg is not PER_LINUX, PER_LINUX32 or the query */
	ESD_SECCOMP_COND_SOCK_TYPE,   /* AF_UNIX, (arg & 0xf) neither SOCK_STREAM nor SOCK_SEQPACKET
				       */
	ESD_SECCOMP_COND_NOT_INET,    /* arg is neither AF_INET nor AF_INET6 over all 64 bits */
	ESD_SECCOMP_COND_INET_TYPE,   /* AF_INET or AF_INET6, (arg & 0xf) not SOCK_STREAM */
	ESD_SECCOMP_COND_INET_TYPE_DGRAM, /* the same, neither SOCK_STREAM nor SOCK_DGRAM */
} EsdSeccompCond;

typedef struct {
	EsdSeccompRow row;
	gint errnum;
	EsdSeccompCond cond;
	guint arg;
	guint64 datum;
	EsdSeccompFlags only_with; /* the rule applies when all these flags are set */
	EsdSeccompFlags not_with;  /* and none of these */
} EsdSeccompRule;

/* the mount API of Linux 5.2, after flatpak: ENOSYS lets libmount fall back to mount(2) */
#define ESD_SECCOMP_NEW_MOUNT_API(name)                                                            \
	{                                                                                          \
		.row = {name,                                                                      \
			"the new mount API changes the file system view like mount "               \
			"(CVE-2021-41133); ENOSYS makes libmount fall back to mount(2)"},          \
		.errnum = ENOSYS,                                                                  \
	}

static const EsdSeccompRule esd_seccomp_rules[] = {
    /* terminals */
    {.row = {"ioctl",
	     "TIOCSTI pushes input into the terminal, typing commands into the shell that "
	     "started the sandbox (CVE-2017-5226); compared on the low 32 bits the kernel reads"},
     .errnum = EPERM,
     .cond = ESD_SECCOMP_COND_LOW32_EQ,
     .arg = 1,
     .datum = TIOCSTI},
    {.row = {"ioctl",
	     "TIOCLINUX copy and paste on a virtual console injects input like TIOCSTI "
	     "(CVE-2023-28100); compared on the low 32 bits the kernel reads"},
     .errnum = EPERM,
     .cond = ESD_SECCOMP_COND_LOW32_EQ,
     .arg = 1,
     .datum = TIOCLINUX},
    {.row = {"vhangup", "hangs up the controlling terminal, which is the user's for a pty"},
     .errnum = EPERM},

    /* other processes */
    {.row = {"ptrace",
	     "tracing reads and rewrites other processes, and could skip seccomp before Linux "
	     "4.8; debuggers run outside the sandbox"},
     .errnum = EPERM},
    {.row = {"process_vm_readv", "reads another process's memory, the access ptrace gives"},
     .errnum = EPERM},
    {.row = {"process_vm_writev", "writes another process's memory, the access ptrace gives"},
     .errnum = EPERM},
    {.row = {"personality",
	     "only PER_LINUX, PER_LINUX32 and the 0xffffffff query: other flags turn off ASLR "
	     "(ADDR_NO_RANDOMIZE), map page zero (MMAP_PAGE_ZERO, CVE-2009-1895) or make data "
	     "executable (READ_IMPLIES_EXEC)"},
     .errnum = EPERM,
     .cond = ESD_SECCOMP_COND_PERSONALITY},

    /* namespaces and the file system view */
    {.row = {"clone3",
	     "seccomp cannot read the flags inside struct clone_args, so CLONE_NEWUSER could "
	     "not be refused (CVE-2021-41133); ENOSYS makes libc fall back to clone"},
     .errnum = ENOSYS},
    {.row = {"clone",
	     "CLONE_NEWUSER: a nested user namespace gives back the capabilities bwrap dropped, "
	     "and with them kernel attack surface and a way to undo the sandbox's mounts"},
     .errnum = EPERM,
     .cond = ESD_SECCOMP_COND_FLAG_SET,
     .arg = 0,
     .datum = CLONE_NEWUSER},
    {.row = {"unshare", "CLONE_NEWUSER, for the same reasons as clone"},
     .errnum = EPERM,
     .cond = ESD_SECCOMP_COND_FLAG_SET,
     .arg = 0,
     .datum = CLONE_NEWUSER},
    {.row = {"setns", "joining another namespace leaves the sandbox's mount, PID or network one"},
     .errnum = EPERM},
    {.row = {"mount", "bwrap sets up the sandbox's mounts; commands may not change them"},
     .errnum = EPERM},
    {.row = {"umount2", "unmounting could uncover what the sandbox's mounts hide"},
     .errnum = EPERM},
    {.row = {"pivot_root", "changes the root of the mount namespace"}, .errnum = EPERM},
    {.row = {"chroot", "changes the root directory, a step in classic chroot escapes"},
     .errnum = EPERM},
    ESD_SECCOMP_NEW_MOUNT_API("open_tree"),
    ESD_SECCOMP_NEW_MOUNT_API("move_mount"),
    ESD_SECCOMP_NEW_MOUNT_API("fsopen"),
    ESD_SECCOMP_NEW_MOUNT_API("fsconfig"),
    ESD_SECCOMP_NEW_MOUNT_API("fsmount"),
    ESD_SECCOMP_NEW_MOUNT_API("fspick"),
    ESD_SECCOMP_NEW_MOUNT_API("mount_setattr"),

    /* kernel attack surface */
    {.row = {"bpf",
	     "eBPF programs are a rich source of kernel exploits (CVE-2021-3490) and can "
	     "observe other processes"},
     .errnum = EPERM},
    {.row = {"perf_event_open",
	     "profiling happens outside the sandbox; perf has a long CVE record "
	     "(CVE-2013-2094) and leaks kernel addresses"},
     .errnum = EPERM},
    {.row = {"userfaultfd",
	     "stalls page faults inside the kernel, the standard way to win kernel races"},
     .errnum = EPERM},
    {.row = {"io_uring_setup",
	     "io_uring operations bypass seccomp (IORING_OP_SOCKET, IORING_OP_OPENAT) and are "
	     "a frequent source of kernel exploits"},
     .errnum = EPERM},
    {.row = {"io_uring_enter", "see io_uring_setup"}, .errnum = EPERM},
    {.row = {"io_uring_register", "see io_uring_setup"}, .errnum = EPERM},
    {.row = {"keyctl",
	     "the kernel keyring is not namespaced: it holds the user's keys and tickets, and "
	     "had exploitable bugs (CVE-2016-0728)"},
     .errnum = EPERM},
    {.row = {"add_key", "see keyctl"}, .errnum = EPERM},
    {.row = {"request_key", "see keyctl"}, .errnum = EPERM},
    {.row = {"lookup_dcookie", "an oprofile interface that reveals paths of other processes"},
     .errnum = EPERM},
    {.row = {"uselib", "the obsolete a.out loader, attack surface only"}, .errnum = EPERM},

    /* administration, needs capabilities bwrap drops: denied again in case one is kept */
    {.row = {"kexec_load", "replaces the running kernel"}, .errnum = EPERM},
    {.row = {"kexec_file_load", "replaces the running kernel"}, .errnum = EPERM},
    {.row = {"init_module", "loads code into the kernel"}, .errnum = EPERM},
    {.row = {"finit_module", "loads code into the kernel"}, .errnum = EPERM},
    {.row = {"delete_module", "removes kernel modules"}, .errnum = EPERM},
    {.row = {"reboot", "reboots or halts the machine"}, .errnum = EPERM},
    {.row = {"swapon", "changes the machine's swap devices"}, .errnum = EPERM},
    {.row = {"swapoff", "changes the machine's swap devices"}, .errnum = EPERM},
    {.row = {"acct", "switches process accounting for the whole machine"}, .errnum = EPERM},
    {.row = {"quotactl", "reads and changes the disk quotas of other users"}, .errnum = EPERM},
    {.row = {"syslog",
	     "reads the kernel log, which leaks kernel addresses and other users' "
	     "activity"},
     .errnum = EPERM},

    /* network, with ESD_SECCOMP_NETWORK_RESTRICTED: one allowed value over all 64 bits, so
     * neither AF_NETLINK nor AF_PACKET nor high bits the kernel drops get through */
    {.row = {"socket",
	     "network access is restricted: AF_UNIX only, every other family (AF_INET, "
	     "AF_INET6, AF_NETLINK, AF_PACKET, ...) fails with EAFNOSUPPORT"},
     .errnum = EAFNOSUPPORT,
     .cond = ESD_SECCOMP_COND_NE,
     .arg = 0,
     .datum = AF_UNIX,
     .only_with = ESD_SECCOMP_NETWORK_RESTRICTED,
     .not_with = ESD_SECCOMP_NETWORK_MANAGED},
    {.row = {"socketpair", "creates sockets of a family too: AF_UNIX only, as for socket"},
     .errnum = EAFNOSUPPORT,
     .cond = ESD_SECCOMP_COND_NE,
     .arg = 0,
     .datum = AF_UNIX,
     .only_with = ESD_SECCOMP_NETWORK_RESTRICTED},
    /*
     * Unix sockets of the host. A path-named socket is reached through any
     * bind that shows its file, read-only or not: connect(2) needs no write
     * access to the mount. The sandbox's network namespace already keeps the
     * host's abstract names out of reach, so only the paths are left.
     */
    {.row = {"connect",
	     "network access is restricted: connect(2) could reach a path-named socket of the "
	     "host through a read-only bind (this daemon's, the session bus, systemd) and ask it "
	     "for an unsandboxed process; socketpair() and inherited sockets still work"},
     .errnum = EPERM,
     .only_with = ESD_SECCOMP_NETWORK_RESTRICTED,
     .not_with = ESD_SECCOMP_NETWORK_MANAGED},
    {.row = {"socket",
	     "network access is restricted: stream and seqpacket sockets only, as a datagram "
	     "socket sends to a path-named socket of the host with sendto(2) or sendmsg(2) "
	     "without connecting (the journal, the systemd notify socket)"},
     .errnum = EPERM,
     .cond = ESD_SECCOMP_COND_SOCK_TYPE,
     .arg = 1,
     .only_with = ESD_SECCOMP_NETWORK_RESTRICTED,
     .not_with = ESD_SECCOMP_NETWORK_MANAGED},
    {.row = {"socketpair",
	     "a datagram socket of a pair still sends to any address it is given: stream and "
	     "seqpacket pairs only, as for socket"},
     .errnum = EPERM,
     .cond = ESD_SECCOMP_COND_SOCK_TYPE,
     .arg = 1,
     .only_with = ESD_SECCOMP_NETWORK_RESTRICTED},
    {.row = {"sendto",
	     "network access is restricted: a destination address is refused, so that no "
	     "socket reaches one it did not connect to; sending on a connected socket works"},
     .errnum = EPERM,
     .cond = ESD_SECCOMP_COND_NE,
     .arg = 4,
     .datum = 0,
     .only_with = ESD_SECCOMP_NETWORK_RESTRICTED,
     .not_with = ESD_SECCOMP_NETWORK_DATAGRAMS},

    /*
     * The managed network (ESD_SECCOMP_NETWORK_MANAGED, with RESTRICTED): the
     * sandbox's network namespace has only its loopback, where the proxy's
     * listeners were made before the command started; TCP reaches nothing
     * else. connect(2) is allowed for it, and since seccomp cannot tell a
     * socket's family at connect time, no AF_UNIX socket may be made that
     * could connect to a host path: socketpair() and inherited sockets only.
     */
    {.row = {"socket",
	     "managed network: AF_INET and AF_INET6 only, which see the sandbox's own loopback; "
	     "AF_UNIX (a path-named socket of the host through a read-only bind, now that "
	     "connect(2) is allowed), AF_NETLINK, AF_PACKET, ... fail with EAFNOSUPPORT"},
     .errnum = EAFNOSUPPORT,
     .cond = ESD_SECCOMP_COND_NOT_INET,
     .arg = 0,
     .only_with = ESD_SECCOMP_NETWORK_RESTRICTED | ESD_SECCOMP_NETWORK_MANAGED},
    {.row = {"socket",
	     "managed network: stream sockets only, the proxy speaks TCP; a datagram or raw "
	     "socket has no proxy to go through"},
     .errnum = EPERM,
     .cond = ESD_SECCOMP_COND_INET_TYPE,
     .arg = 1,
     .only_with = ESD_SECCOMP_NETWORK_RESTRICTED | ESD_SECCOMP_NETWORK_MANAGED,
     .not_with = ESD_SECCOMP_NETWORK_DATAGRAMS},
    /*
     * With the proxy's UDP relays on the namespace's loopback
     * (ESD_SECCOMP_NETWORK_DATAGRAMS), a SOCKS5 client sends its datagrams
     * there: IP datagram sockets, and sendto(2) with an address, which the
     * restricted rule above refuses. Neither reaches more: the namespace has
     * no route but its loopback, and no datagram socket of another family
     * can be made here (AF_UNIX is refused by socket(2), its datagram pairs
     * by socketpair(2)); sendmsg(2) names an address unchecked already.
     */
    {.row = {"socket",
	     "managed network with UDP relays: stream and datagram sockets only; a raw or "
	     "packet socket has no proxy to go through"},
     .errnum = EPERM,
     .cond = ESD_SECCOMP_COND_INET_TYPE_DGRAM,
     .arg = 1,
     .only_with = ESD_SECCOMP_NETWORK_RESTRICTED | ESD_SECCOMP_NETWORK_MANAGED |
		  ESD_SECCOMP_NETWORK_DATAGRAMS},
};

const EsdSeccompRow *
esd_seccomp_rows(gsize *n_rows)
{
	static EsdSeccompRow rows[G_N_ELEMENTS(esd_seccomp_rules)];
	static gsize initialized = 0;

	if (g_once_init_enter(&initialized)) {
		for (gsize i = 0; i < G_N_ELEMENTS(esd_seccomp_rules); i++)
			rows[i] = esd_seccomp_rules[i].row;
		g_once_init_leave(&initialized, 1);
	}
	if (n_rows != NULL)
		*n_rows = G_N_ELEMENTS(rows);
	return rows;
}

/*
 * libseccomp allows one comparison per argument in a rule, so "none of 0, 8 and
 * 0xffffffff" is written as a union of denied sets: values above 32 bits; for each of
 * the 31 bits other than bit 3, taken in a cycle, "this bit set and the next one clear",
 * which matches every value whose other bits are neither all clear nor all set; and
 * 0xfffffff7, the one value left besides the three allowed ones
 */
static gint
esd_seccomp_add_personality(scmp_filter_ctx ctx, guint32 action, gint nr)
{
	guint bits[31];
	guint n_bits = 0;
	gint r;

	G_STATIC_ASSERT(PER_LINUX == 0 && PER_LINUX32 == 0x8);
	r = seccomp_rule_add_exact(ctx, action, nr, 1, SCMP_A0(SCMP_CMP_GT, G_MAXUINT32));
	if (r < 0)
		return r;
	r = seccomp_rule_add_exact(ctx, action, nr, 1, SCMP_A0(SCMP_CMP_EQ, G_MAXUINT32 & ~0x8u));
	if (r < 0)
		return r;
	for (guint bit = 0; bit < 32; bit++) {
		if (bit != 3)
			bits[n_bits++] = bit;
	}
	for (guint i = 0; i < n_bits; i++) {
		guint64 set = G_GUINT64_CONSTANT(1) << bits[i];
		guint64 clear = G_GUINT64_CONSTANT(1) << bits[(i + 1) % n_bits];
		r = seccomp_rule_add_exact(ctx,
					   action,
					   nr,
					   1,
					   SCMP_A0(SCMP_CMP_MASKED_EQ, set | clear, set));
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * The type argument carries SOCK_NONBLOCK and SOCK_CLOEXEC above the type
 * itself, which the kernel reads from the low four bits (SOCK_TYPE_MASK):
 * one denied value of those bits a rule, every one but the two allowed.
 * Other families are left to the family's own rule, so that their errno
 * stays EAFNOSUPPORT.
 */
static gint
esd_seccomp_add_sock_type(scmp_filter_ctx ctx, guint32 action, gint nr, guint arg)
{
	for (guint64 type = 0; type <= 0xf; type++) {
		gint r;

		if (type == SOCK_STREAM || type == SOCK_SEQPACKET)
			continue;
		r = seccomp_rule_add_exact(ctx,
					   action,
					   nr,
					   2,
					   SCMP_A0(SCMP_CMP_EQ, AF_UNIX),
					   SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, 0xf, type));
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * "Neither AF_INET (2) nor AF_INET6 (10)" as a union of denied sets, one
 * comparison a rule: below 2, above 10 (over 64 bits, so high bits the
 * kernel would drop are refused too), and each value between.
 */
static gint
esd_seccomp_add_not_inet(scmp_filter_ctx ctx, guint32 action, gint nr, guint arg)
{
	gint r;

	G_STATIC_ASSERT(AF_INET == 2 && AF_INET6 == 10);
	r = seccomp_rule_add_exact(ctx, action, nr, 1, SCMP_CMP(arg, SCMP_CMP_LT, AF_INET));
	if (r < 0)
		return r;
	r = seccomp_rule_add_exact(ctx, action, nr, 1, SCMP_CMP(arg, SCMP_CMP_GT, AF_INET6));
	if (r < 0)
		return r;
	for (guint64 family = AF_INET + 1; family < AF_INET6; family++) {
		r = seccomp_rule_add_exact(ctx, action, nr, 1, SCMP_CMP(arg, SCMP_CMP_EQ, family));
		if (r < 0)
			return r;
	}
	return 0;
}

/* as esd_seccomp_add_sock_type(), for the two IP families and SOCK_STREAM (and SOCK_DGRAM) */
static gint
esd_seccomp_add_inet_type(scmp_filter_ctx ctx, guint32 action, gint nr, guint arg, gboolean dgram)
{
	const guint64 families[] = {AF_INET, AF_INET6};

	for (guint i = 0; i < G_N_ELEMENTS(families); i++) {
		for (guint64 type = 0; type <= 0xf; type++) {
			gint r;

			if (type == SOCK_STREAM || (dgram && type == SOCK_DGRAM))
				continue;
			r = seccomp_rule_add_exact(ctx,
						   action,
						   nr,
						   2,
						   SCMP_A0(SCMP_CMP_EQ, families[i]),
						   SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, 0xf, type));
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static gint
esd_seccomp_add_rule(scmp_filter_ctx ctx, const EsdSeccompRule *rule, gint nr)
{
	guint32 action = SCMP_ACT_ERRNO(rule->errnum);

	switch (rule->cond) {
	case ESD_SECCOMP_COND_ALWAYS:
		return seccomp_rule_add_exact(ctx, action, nr, 0);
	case ESD_SECCOMP_COND_LOW32_EQ:
		return seccomp_rule_add_exact(
		    ctx,
		    action,
		    nr,
		    1,
		    SCMP_CMP(rule->arg, SCMP_CMP_MASKED_EQ, G_MAXUINT32, rule->datum));
	case ESD_SECCOMP_COND_FLAG_SET:
		return seccomp_rule_add_exact(
		    ctx,
		    action,
		    nr,
		    1,
		    SCMP_CMP(rule->arg, SCMP_CMP_MASKED_EQ, rule->datum, rule->datum));
	case ESD_SECCOMP_COND_NE:
		return seccomp_rule_add_exact(ctx,
					      action,
					      nr,
					      1,
					      SCMP_CMP(rule->arg, SCMP_CMP_NE, rule->datum));
	case ESD_SECCOMP_COND_PERSONALITY:
		return esd_seccomp_add_personality(ctx, action, nr);
	case ESD_SECCOMP_COND_SOCK_TYPE:
		return esd_seccomp_add_sock_type(ctx, action, nr, rule->arg);
	case ESD_SECCOMP_COND_NOT_INET:
		return esd_seccomp_add_not_inet(ctx, action, nr, rule->arg);
	case ESD_SECCOMP_COND_INET_TYPE:
		return esd_seccomp_add_inet_type(ctx, action, nr, rule->arg, FALSE);
	case ESD_SECCOMP_COND_INET_TYPE_DGRAM:
		return esd_seccomp_add_inet_type(ctx, action, nr, rule->arg, TRUE);
	default:
		return -EINVAL;
	}
}

static gboolean
esd_seccomp_add_rules(scmp_filter_ctx ctx, EsdSeccompFlags flags, GError **error)
{
	for (gsize i = 0; i < G_N_ELEMENTS(esd_seccomp_rules); i++) {
		const EsdSeccompRule *rule = &esd_seccomp_rules[i];
		gint nr;
		gint r;

		if ((flags & rule->only_with) != rule->only_with || (flags & rule->not_with) != 0)
			continue;
		/* negative: unknown to libseccomp, or a pseudo number for another architecture */
		nr = seccomp_syscall_resolve_name(rule->row.syscall);
		if (nr < 0) {
			g_debug("%s is not a system call here, skipped", rule->row.syscall);
			continue;
		}
		r = esd_seccomp_add_rule(ctx, rule, nr);
		if (r == -EFAULT) {
			g_debug("libseccomp cannot filter %s here, skipped", rule->row.syscall);
			continue;
		}
		if (r < 0) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "failed to add the seccomp rule for %s: %s",
				    rule->row.syscall,
				    g_strerror(-r));
			return FALSE;
		}
	}
	return TRUE;
}

static void
esd_seccomp_close_fdp(gint *fd)
{
	if (*fd >= 0) {
		gint saved = errno;
		close(*fd);
		errno = saved;
		*fd = -1;
	}
}

static gint
esd_seccomp_export(scmp_filter_ctx ctx, GError **error)
{
	const gint seals = F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
	__attribute__((cleanup(esd_seccomp_close_fdp))) gint fd = -1;
	gint r;

	fd = memfd_create("esd-seccomp", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		gint errsv = errno;
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "failed to create the seccomp memfd: %s",
			    g_strerror(errsv));
		return -1;
	}
	r = seccomp_export_bpf(ctx, fd);
	if (r < 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "failed to export the seccomp program: %s",
			    g_strerror(-r));
		return -1;
	}
	if (fcntl(fd, F_ADD_SEALS, seals) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
		gint errsv = errno;
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "failed to seal the seccomp memfd: %s",
			    g_strerror(errsv));
		return -1;
	}
	return g_steal_fd(&fd);
}

static gboolean
esd_seccomp_check_arch(GError **error)
{
#ifdef ESD_SECCOMP_ARCH
	if (seccomp_arch_native() != ESD_SECCOMP_ARCH) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_NOT_SUPPORTED,
			    "the seccomp table is for " ESD_SECCOMP_ARCH_NAME
			    ", but libseccomp's native architecture is 0x%x",
			    seccomp_arch_native());
		return FALSE;
	}
	return TRUE;
#else
	g_set_error_literal(error,
			    ERPC_ERROR,
			    ERPC_ERROR_NOT_SUPPORTED,
			    "the seccomp table has no rules for this architecture");
	return FALSE;
#endif
}

static gint
esd_seccomp_build_fd_uncached(EsdSeccompFlags flags, GError **error)
{
	g_auto(scmp_filter_ctx) ctx = NULL;
	gint r;

	if (!esd_seccomp_check_arch(error))
		return -1;

	/* the context holds the native architecture only, so libseccomp sends the calls of
	 * every other ABI to the bad-architecture action: another AUDIT_ARCH (i386 through
	 * int 0x80) and x32 (AUDIT_ARCH_X86_64 with bit 0x40000000 set in the number) */
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx == NULL) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "failed to initialise libseccomp");
		return -1;
	}
	r = seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
	if (r == 0)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (r < 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "failed to set up the seccomp filter: %s",
			    g_strerror(-r));
		return -1;
	}
	if (!esd_seccomp_add_rules(ctx, flags, error))
		return -1;
	return esd_seccomp_export(ctx, error);
}

/*
 * Building the program costs more than the rest of a sandboxed spawn, so
 * each variant is built once. Every caller gets its own open file
 * description of that sealed memfd (through /proc/self/fd), positioned at
 * the start, because bwrap reads the program with read().
 */
static GMutex esd_seccomp_cache_lock;
static gint esd_seccomp_cache[ESD_SECCOMP_FLAGS_ALL + 1] = {-1, -1, -1, -1, -1, -1, -1, -1};

gint
esd_seccomp_build_fd(EsdSeccompFlags flags, GError **error)
{
	g_autoptr(GMutexLocker) locker = NULL;
	gchar path[64];
	gint fd;

	g_return_val_if_fail((flags & ~ESD_SECCOMP_FLAGS_ALL) == 0, -1);
	g_return_val_if_fail(error == NULL || *error == NULL, -1);

	locker = g_mutex_locker_new(&esd_seccomp_cache_lock);
	if (esd_seccomp_cache[flags] < 0) {
		fd = esd_seccomp_build_fd_uncached(flags, error);
		if (fd < 0)
			return -1;
		esd_seccomp_cache[flags] = fd;
	}
	g_snprintf(path, sizeof(path), "/proc/self/fd/%d", esd_seccomp_cache[flags]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	/* no /proc: a program of its own */
	return esd_seccomp_build_fd_uncached(flags, error);
}
