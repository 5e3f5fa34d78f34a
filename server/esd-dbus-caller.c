/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <execrpc.h>

#include "esd-dbus-caller.h"

/*
 * Who is calling over D-Bus, identified the way xdg-desktop-portal does it.
 * The bus's GetConnectionCredentials gives the uid and pid the caller had
 * when it connected, and with dbus-broker or dbus-daemon 1.15.6 and later a
 * pidfd (ProcessFD) that pins that very process.
 *
 * Everything is read through one /proc/PID directory descriptor: it stays
 * bound to the process that had the pid when it was opened, and reads
 * through it fail once that process is gone, even if the pid is reused. With
 * a ProcessFD, the pidfd still running after the open shows that the
 * directory is its process's. Without one, the process found at the pid must
 * have started before the call arrived and run as the bus's uid, or it is a
 * later one that reused the number. Afterwards the process must still be
 * there, so that what was read is its.
 *
 * What is left without a ProcessFD: a caller that passes its bus connection
 * to another process and exits, and whose pid a process of the same user
 * started before the call then takes, is identified as that process.
 *
 * A Flatpak app (and the xdg-dbus-proxy that carries its bus traffic) has
 * /.flatpak-info in its root; a snap runs in a cgroup called snap.NAME.… and
 * under the AppArmor label snap.NAME.…, which the bus also records when the
 * caller connects. Whatever cannot be read makes the identification fail: the
 * service refuses callers it cannot place.
 */

/* a .flatpak-info is a few hundred bytes; refuse to read a huge one */
#define ESD_DBUS_CALLER_INFO_MAX (64 * 1024)
/* /proc/PID/cgroup and the label files */
#define ESD_DBUS_CALLER_PROC_MAX (64 * 1024)

static void
esd_dbus_caller_close_fdp(gint *fd)
{
	if (*fd >= 0) {
		gint saved_errno = errno;
		close(*fd);
		errno = saved_errno;
	}
}

#define esd_caller_autofd __attribute__((cleanup(esd_dbus_caller_close_fdp)))

/* out of descriptors or memory is busy, for the service to answer LimitsExceeded */
static ErpcError
esd_dbus_caller_error_from_errno(gint errnum)
{
	if (errnum == EMFILE || errnum == ENFILE || errnum == ENOMEM || errnum == ENOBUFS)
		return ERPC_ERROR_BUSY;
	return erpc_error_code_from_errno(errnum);
}

void
esd_dbus_caller_free(EsdDBusCaller *caller)
{
	if (caller == NULL)
		return;
	g_free(caller->app_id);
	g_free(caller);
}

/**
 * esd_dbus_caller_now:
 *
 * Returns: CLOCK_BOOTTIME in microseconds, the clock of process start times
 */
gint64
esd_dbus_caller_now(void)
{
	struct timespec ts = {0};

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (gint64)ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

/* reads a small regular file, @name for messages */
static gchar *
esd_dbus_caller_read_fd(gint fd, const gchar *name, gsize max, gsize *len, GError **error)
{
	g_autoptr(GString) buf = NULL;
	struct stat st;

	if (fstat(fd, &st) != 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    esd_dbus_caller_error_from_errno(errno),
			    "cannot read %s: %s",
			    name,
			    g_strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "%s is not a regular file",
			    name);
		return NULL;
	}
	buf = g_string_sized_new(1024);
	for (;;) {
		gchar chunk[4096];
		gssize n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			g_set_error(error,
				    ERPC_ERROR,
				    esd_dbus_caller_error_from_errno(errno),
				    "cannot read %s: %s",
				    name,
				    g_strerror(errno));
			return NULL;
		}
		if (n == 0)
			break;
		if (buf->len + (gsize)n > max) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "%s is larger than %" G_GSIZE_FORMAT " bytes",
				    name,
				    max);
			return NULL;
		}
		g_string_append_len(buf, chunk, n);
	}
	if (len != NULL)
		*len = buf->len;
	return g_string_free(g_steal_pointer(&buf), FALSE);
}

/* reads a small file below @dirfd, never through a symbolic link */
static gchar *
esd_dbus_caller_read_at(gint dirfd, const gchar *name, gsize max, GError **error)
{
	esd_caller_autofd gint fd =
	    openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    esd_dbus_caller_error_from_errno(errno),
			    "cannot read %s: %s",
			    name,
			    g_strerror(errno));
		return NULL;
	}
	return esd_dbus_caller_read_fd(fd, name, max, NULL, error);
}

/* "snap.NAME.APP…" → NAME; NULL if @text does not start a snap's name */
static gchar *
esd_dbus_caller_snap_name(const gchar *text)
{
	const gchar *name;
	gsize len;

	if (!g_str_has_prefix(text, "snap."))
		return NULL;
	name = text + strlen("snap.");
	len = strcspn(name, ". \n");
	return len > 0 ? g_strndup(name, len) : g_strdup("(unnamed)");
}

/**
 * esd_dbus_caller_snap_from_cgroup:
 * @contents: the text of /proc/PID/cgroup
 *
 * As xdg-desktop-portal: a snap's processes are in a cgroup called
 * `snap.NAME.…` of the unified hierarchy, the systemd one or the freezer.
 *
 * Returns: (transfer full) (nullable): the snap's name, NULL if not a snap
 */
gchar *
esd_dbus_caller_snap_from_cgroup(const gchar *contents)
{
	g_auto(GStrv) lines = g_strsplit(contents, "\n", -1);

	for (guint i = 0; lines[i] != NULL; i++) {
		/* hierarchy-id:controllers:path, the path may hold colons */
		g_auto(GStrv) fields = g_strsplit(lines[i], ":", 3);
		const gchar *found;

		if (g_strv_length(fields) != 3)
			continue;
		if (g_strcmp0(fields[1], "") != 0 && g_strcmp0(fields[1], "name=systemd") != 0 &&
		    g_strcmp0(fields[1], "freezer") != 0)
			continue;
		found = strstr(fields[2], "/snap.");
		if (found != NULL)
			return esd_dbus_caller_snap_name(found + 1);
	}
	return NULL;
}

/**
 * esd_dbus_caller_snap_from_label:
 * @label: an AppArmor label such as `snap.NAME.APP (enforce)`
 *
 * Returns: (transfer full) (nullable): the snap's name, NULL if not a snap
 */
gchar *
esd_dbus_caller_snap_from_label(const gchar *label)
{
	return esd_dbus_caller_snap_name(label);
}

/* the pid a pidfd refers to in our PID namespace, from its fdinfo */
static gboolean
esd_dbus_caller_pidfd_get_pid(gint pidfd, guint32 *pid, GError **error)
{
	g_autofree gchar *path = g_strdup_printf("/proc/self/fdinfo/%d", pidfd);
	g_autofree gchar *text = NULL;
	g_autoptr(GError) error_local = NULL;
	const gchar *line;
	gint64 value;

	if (!g_file_get_contents(path, &text, NULL, &error_local)) {
		gboolean busy = g_error_matches(error_local, G_FILE_ERROR, G_FILE_ERROR_MFILE) ||
				g_error_matches(error_local, G_FILE_ERROR, G_FILE_ERROR_NFILE);
		g_set_error(error,
			    ERPC_ERROR,
			    busy ? ERPC_ERROR_BUSY : ERPC_ERROR_INTERNAL,
			    "cannot read the caller's pidfd: %s",
			    error_local->message);
		return FALSE;
	}
	line = strstr(text, "\nPid:");
	if (line == NULL) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "ProcessFD is not a pidfd");
		return FALSE;
	}
	value = g_ascii_strtoll(line + strlen("\nPid:"), NULL, 10);
	if (value < 0) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_NOT_FOUND,
				    "the caller has exited");
		return FALSE;
	}
	if (value == 0 || value > G_MAXINT32) {
		g_set_error_literal(
		    error,
		    ERPC_ERROR,
		    ERPC_ERROR_NOT_SUPPORTED,
		    "the caller runs in a PID namespace the daemon cannot see into");
		return FALSE;
	}
	*pid = (guint32)value;
	return TRUE;
}

/*
 * the ProcessFD the bus passed, if any, still owned by @fd_list (no copy:
 * one descriptor fewer needed); -1 without one, -2 with @error set
 */
static gint
esd_dbus_caller_peek_process_fd(GVariant *credentials, GUnixFDList *fd_list, GError **error)
{
	g_autoptr(GVariant) handle = g_variant_lookup_value(credentials, "ProcessFD", NULL);
	gint32 index;

	if (handle == NULL)
		return -1;
	if (!g_variant_is_of_type(handle, G_VARIANT_TYPE_HANDLE)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "ProcessFD has type %s",
			    g_variant_get_type_string(handle));
		return -2;
	}
	index = g_variant_get_handle(handle);
	if (fd_list == NULL || index < 0 || index >= g_unix_fd_list_get_length(fd_list)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "ProcessFD %d is not among the descriptors of the reply",
			    index);
		return -2;
	}
	return g_unix_fd_list_peek_fds(fd_list, NULL)[index];
}

/*
 * a pidfd polls readable once its process has exited; a /proc/PID directory
 * stays bound to the process it was opened for, its stat shows a zombie
 * and then nothing at all, even after the pid is reused
 */
static gboolean
esd_dbus_caller_alive(gint pidfd, gint proc_fd, GError **error)
{
	g_autofree gchar *stat = NULL;
	const gchar *paren;

	if (pidfd >= 0) {
		struct pollfd pfd = {.fd = pidfd, .events = POLLIN};
		gint ready;

		do
			ready = poll(&pfd, 1, 0);
		while (ready < 0 && errno == EINTR);
		if (ready == 0)
			return TRUE;
	} else {
		stat = esd_dbus_caller_read_at(proc_fd, "stat", 4096, NULL);
		paren = stat != NULL ? strrchr(stat, ')') : NULL;
		if (paren != NULL && paren[1] == ' ' && paren[2] != '\0' && paren[2] != 'Z' &&
		    paren[2] != 'X')
			return TRUE;
	}
	g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_NOT_FOUND, "the caller has exited");
	return FALSE;
}

/*
 * without a ProcessFD, the pid may have been reused since the caller
 * connected: a process started after the call, or of another user, is not it
 */
static gboolean
esd_dbus_caller_check_not_reused(gint proc_fd, guint32 uid, gint64 called_at, GError **error)
{
	g_autofree gchar *stat = esd_dbus_caller_read_at(proc_fd, "stat", 4096, error);
	g_autofree gchar *status = NULL;
	g_auto(GStrv) fields = NULL;
	const gchar *paren;
	const gchar *line;
	guint64 started;
	guint64 called;
	glong ticks = sysconf(_SC_CLK_TCK);

	if (stat == NULL)
		return FALSE;
	/* the command name may hold spaces and parentheses: fields follow the last ')' */
	paren = strrchr(stat, ')');
	if (paren == NULL || ticks <= 0) {
		g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_INTERNAL, "cannot parse stat");
		return FALSE;
	}
	fields = g_strsplit(paren + 2, " ", -1);
	/* field 22, starttime: the third after ')' is field 3 */
	if (g_strv_length(fields) < 20) {
		g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_INTERNAL, "cannot parse stat");
		return FALSE;
	}
	started = g_ascii_strtoull(fields[19], NULL, 10);
	called = (guint64)called_at * (guint64)ticks / G_USEC_PER_SEC;
	if (started > called) {
		g_set_error_literal(
		    error,
		    ERPC_ERROR,
		    ERPC_ERROR_NOT_FOUND,
		    "the caller has exited: its pid now belongs to a later process");
		return FALSE;
	}
	status = esd_dbus_caller_read_at(proc_fd, "status", ESD_DBUS_CALLER_PROC_MAX, error);
	if (status == NULL)
		return FALSE;
	line = strstr(status, "\nUid:");
	if (line != NULL) {
		g_auto(GStrv) uids = g_strsplit_set(line + strlen("\nUid:"), " \t\n", -1);
		guint n = 0;
		/* real, effective, saved, fs: the bus recorded the effective one */
		for (guint i = 0; uids[i] != NULL; i++) {
			if (uids[i][0] == '\0')
				continue;
			if (++n == 2 && g_ascii_strtoull(uids[i], NULL, 10) == uid)
				return TRUE;
		}
	}
	g_set_error_literal(error,
			    ERPC_ERROR,
			    ERPC_ERROR_NOT_FOUND,
			    "the caller has exited: its pid now belongs to another user's process");
	return FALSE;
}

/* sets @caller's kind from /.flatpak-info in its root; FALSE if that cannot be told */
static gboolean
esd_dbus_caller_check_flatpak(EsdDBusCaller *caller, gint proc_fd, GError **error)
{
	esd_caller_autofd gint info_fd = -1;
	g_autoptr(GError) error_local = NULL;
	g_autoptr(GKeyFile) info = g_key_file_new();
	g_autofree gchar *text = NULL;
	gsize len = 0;

	/*
	 * in its root, reached through the magic link; the file itself is not
	 * followed if it is a link, which would resolve against our root. One
	 * descriptor at a time beside the directory: OpenConnection still works
	 * with few to spare. A caller that exited meanwhile has no root, and
	 * fails the check that follows.
	 */
	info_fd = openat(proc_fd,
			 "root/.flatpak-info",
			 O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
	if (info_fd < 0 && errno == ENOENT)
		return TRUE;
	if (info_fd < 0 && errno != ELOOP) {
		g_set_error(error,
			    ERPC_ERROR,
			    esd_dbus_caller_error_from_errno(errno),
			    "cannot look into the caller's root directory: %s",
			    g_strerror(errno));
		return FALSE;
	}
	/* the app can neither remove nor change the file: whatever is there marks it */
	caller->kind = ESD_DBUS_CALLER_FLATPAK;
	if (info_fd >= 0)
		text = esd_dbus_caller_read_fd(info_fd,
					       ".flatpak-info",
					       ESD_DBUS_CALLER_INFO_MAX,
					       &len,
					       &error_local);
	if (text == NULL) {
		g_debug("D-Bus caller %u: unreadable /.flatpak-info: %s",
			caller->pid,
			error_local != NULL ? error_local->message : "a symbolic link");
		return TRUE;
	}
	if (g_key_file_load_from_data(info, text, len, G_KEY_FILE_NONE, NULL)) {
		const gchar *group =
		    g_key_file_has_group(info, "Runtime") ? "Runtime" : "Application";
		g_autofree gchar *name = g_key_file_get_string(info, group, "name", NULL);
		if (name != NULL && g_utf8_validate(name, -1, NULL))
			caller->app_id = g_strescape(name, NULL);
	}
	return TRUE;
}

/* sets @caller's kind from the bus's label, the process's label or its cgroup */
static gboolean
esd_dbus_caller_check_snap(EsdDBusCaller *caller,
			   gint proc_fd,
			   GVariant *credentials,
			   GError **error)
{
	g_autoptr(GVariant) label =
	    g_variant_lookup_value(credentials, "LinuxSecurityLabel", G_VARIANT_TYPE_BYTESTRING);
	const gchar *files[] = {"attr/apparmor/current", "attr/current"};
	g_autofree gchar *cgroup = NULL;
	g_autofree gchar *name = NULL;

	/* recorded when the caller connected: no race */
	if (label != NULL)
		name = esd_dbus_caller_snap_from_label(g_variant_get_bytestring(label));
	for (guint i = 0; name == NULL && i < G_N_ELEMENTS(files); i++) {
		g_autofree gchar *text =
		    esd_dbus_caller_read_at(proc_fd, files[i], ESD_DBUS_CALLER_PROC_MAX, NULL);
		if (text != NULL)
			name = esd_dbus_caller_snap_from_label(text);
	}
	if (name == NULL) {
		cgroup =
		    esd_dbus_caller_read_at(proc_fd, "cgroup", ESD_DBUS_CALLER_PROC_MAX, error);
		if (cgroup == NULL)
			return FALSE;
		name = esd_dbus_caller_snap_from_cgroup(cgroup);
	}
	if (name != NULL) {
		caller->kind = ESD_DBUS_CALLER_SNAP;
		caller->app_id = g_strescape(name, NULL);
	}
	return TRUE;
}

/* the caller's pid in our namespace, and the bus's pidfd of it (in @fd_list) or -1 */
static gboolean
esd_dbus_caller_find_process(GVariant *credentials,
			     GUnixFDList *fd_list,
			     guint32 *pid,
			     gint *pidfd,
			     GError **error)
{
	gint fd = esd_dbus_caller_peek_process_fd(credentials, fd_list, error);

	if (fd == -2)
		return FALSE;
	if (fd >= 0) {
		if (!esd_dbus_caller_pidfd_get_pid(fd, pid, error))
			return FALSE;
		*pidfd = fd;
		return TRUE;
	}
	if (!g_variant_lookup(credentials, "ProcessID", "u", pid) || *pid == 0) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_NOT_SUPPORTED,
				    "the bus does not know the caller's process");
		return FALSE;
	}
	*pidfd = -1;
	return TRUE;
}

/**
 * esd_dbus_caller_identify:
 * @credentials: the a{sv} of GetConnectionCredentials
 * @fd_list: (nullable): the descriptors that came with it
 * @called_at: esd_dbus_caller_now() when the call arrived
 *
 * Returns: (transfer full): the caller, or %NULL with @error set if it cannot
 * be told where the caller runs (it left, or /proc does not say)
 */
EsdDBusCaller *
esd_dbus_caller_identify(GVariant *credentials,
			 GUnixFDList *fd_list,
			 gint64 called_at,
			 GError **error)
{
	g_autoptr(EsdDBusCaller) caller = g_new0(EsdDBusCaller, 1);
	g_autofree gchar *proc_path = NULL;
	gint pidfd = -1;
	esd_caller_autofd gint proc_fd = -1;

	g_return_val_if_fail(g_variant_is_of_type(credentials, G_VARIANT_TYPE_VARDICT), NULL);

	if (!g_variant_lookup(credentials, "UnixUserID", "u", &caller->uid)) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_NOT_SUPPORTED,
				    "the bus does not know the caller's uid");
		return NULL;
	}
	if (!esd_dbus_caller_find_process(credentials, fd_list, &caller->pid, &pidfd, error))
		return NULL;
	proc_path = g_strdup_printf("/proc/%u", caller->pid);
	proc_fd = open(proc_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proc_fd < 0 && (errno == ENOENT || errno == ESRCH)) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_NOT_FOUND,
				    "the caller has exited");
		return NULL;
	}
	if (proc_fd < 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    esd_dbus_caller_error_from_errno(errno),
			    "cannot open %s: %s",
			    proc_path,
			    g_strerror(errno));
		return NULL;
	}
	/* the directory is of the process that had the pid then: the pidfd's if it still runs */
	if (pidfd >= 0 && !esd_dbus_caller_alive(pidfd, proc_fd, error))
		return NULL;
	if (pidfd < 0 && !esd_dbus_caller_check_not_reused(proc_fd, caller->uid, called_at, error))
		return NULL;
	if (!esd_dbus_caller_check_flatpak(caller, proc_fd, error))
		return NULL;
	if (caller->kind == ESD_DBUS_CALLER_HOST &&
	    !esd_dbus_caller_check_snap(caller, proc_fd, credentials, error))
		return NULL;
	/* still there: what was read is that process's */
	if (!esd_dbus_caller_alive(pidfd, proc_fd, error))
		return NULL;
	return g_steal_pointer(&caller);
}

/**
 * esd_dbus_caller_describe:
 *
 * Returns: (transfer full): e.g. "flatpak app org.example.App (pid 42)"
 */
gchar *
esd_dbus_caller_describe(const EsdDBusCaller *caller)
{
	const gchar *app_id = caller->app_id != NULL ? caller->app_id : "of unknown name";

	switch (caller->kind) {
	case ESD_DBUS_CALLER_FLATPAK:
		return g_strdup_printf("flatpak app %s (pid %u)", app_id, caller->pid);
	case ESD_DBUS_CALLER_SNAP:
		return g_strdup_printf("snap %s (pid %u)", app_id, caller->pid);
	case ESD_DBUS_CALLER_HOST:
	default:
		return g_strdup_printf("pid %u", caller->pid);
	}
}
