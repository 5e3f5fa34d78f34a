/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* records a supervisor writes on the report pipe, 8 bytes each */
typedef enum {
	ESD_SPAWN_REPORT_SETUP_FAILED = 1, /* value: errno of a step before exec */
	ESD_SPAWN_REPORT_CHDIR_FAILED = 2, /* value: errno of chdir() */
	ESD_SPAWN_REPORT_EXEC_FAILED = 3,  /* value: errno of execve() */
	ESD_SPAWN_REPORT_EXITED = 4,	   /* value: the command's wait status */
	ESD_SPAWN_REPORT_STARTED = 5,	   /* the command was executed */
	ESD_SPAWN_REPORT_PID = 6, /* value: the supervisor's pid, first from the spawn server */
	ESD_SPAWN_REPORT_FORK_FAILED = 7, /* value: errno of the spawn server's clone() */
} EsdSpawnReport;

/*
 * One request to the spawn server (esd-supervise --server), a SOCK_SEQPACKET
 * message: this header, n_extra_fds target descriptor numbers (gint32), then
 * strings_len bytes of NUL-terminated strings: cwd, program, argc argv
 * entries, envc environment entries. SCM_RIGHTS carries the report pipe,
 * stdin, stdout, stderr, then the Landlock ruleset and the network namespace
 * when their flags are set, then the extra descriptors.
 */
typedef struct {
	guint32 magic;
	guint32 flags; /* ESD_SPAWN_SERVER_* */
	guint32 n_extra_fds;
	guint32 argc;
	guint32 envc;
	guint32 strings_len;
} EsdSpawnServerHeader;

#define ESD_SPAWN_SERVER_MAGIC	       0x45535a31u /* "ESZ1" */
#define ESD_SPAWN_SERVER_TTY	       (1u << 0)
#define ESD_SPAWN_SERVER_PID_NAMESPACE (1u << 1)
#define ESD_SPAWN_SERVER_LANDLOCK      (1u << 2)
#define ESD_SPAWN_SERVER_NETNS	       (1u << 3)
/* a header alone, no descriptors: fork a spare supervisor and announce it */
#define ESD_SPAWN_SERVER_SPARE (1u << 4)
/* larger requests, or with more descriptors than SCM_RIGHTS takes, are exec-ed directly */
#define ESD_SPAWN_SERVER_MAX_MESSAGE (192 * 1024)
#define ESD_SPAWN_SERVER_MAX_FDS     250
/* the spawn server's end of its socket */
#define ESD_SPAWN_SERVER_FD 3

/*
 * The server's answer to ESD_SPAWN_SERVER_SPARE, the only message it sends:
 * the spare's pid (or -errno) and, by SCM_RIGHTS, the daemon's end of the
 * spare's own socket, where one request in the format above starts its
 * command.
 */
typedef struct {
	guint32 magic;
	gint32 pid;
} EsdSpawnSpareAnnounce;

#define ESD_SPAWN_SPARE_MAGIC 0x45535331u /* "ESS1" */

typedef struct {
	const gchar *path;  /* the executable, already resolved */
	gchar *const *argv; /* argv[0] is what the command sees */
	gchar *const *envp;
	const gchar *cwd;
	gboolean tty;
	gboolean pipe_stdin;
	guint16 rows;
	guint16 cols;
	const gint
	    *extra_fds; /* inherited by the command as 7, 8, …: for bwrap's --args and --seccomp */
	guint n_extra_fds; /* at most ESD_SPAWN_MAX_EXTRA_FDS */
	gboolean landlock; /* enter the Landlock ruleset landlock_fd before the supervisor */
	gint landlock_fd;
	gboolean netns; /* the supervisor joins the network namespace netns_fd (> 6) */
	gint netns_fd;
} EsdSpawnRequest;

#define ESD_SPAWN_FIRST_EXTRA_FD 7
#define ESD_SPAWN_MAX_EXTRA_FDS	 1024

typedef struct {
	GPid pid;		/* the supervisor, parent of the command */
	gint stdin_fd;		/* pipe or pty master for writing, or -1 */
	gint stdout_fd;		/* pipe, or the pty master */
	gint stderr_fd;		/* pipe, or -1 with a pty */
	gint report_fd;		/* EsdSpawnReport records from the supervisor */
	gboolean pid_namespace; /* the supervisor is init of its own PID namespace */
} EsdSpawnResult;

void
esd_spawn_set_supervisor(const gchar *path);
const gchar *
esd_spawn_get_supervisor(void);
void
esd_spawn_set_pid_namespace(gboolean enabled);
void
esd_spawn_set_use_server(gboolean enabled);
void
esd_spawn_result_clear(EsdSpawnResult *result);
gboolean
esd_spawn(const EsdSpawnRequest *request, EsdSpawnResult *result, GError **error);
void
esd_spawn_refill_spare(void);
void
esd_spawn_kill_tree(GPid supervisor, gboolean pid_namespace);
void
esd_spawn_interrupt(GPid supervisor);

G_END_DECLS
