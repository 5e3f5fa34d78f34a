/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "esd-test-leftovers.h"
#include "esd-test-utils.h"

#define ESD_TEST_LEFTOVERS_POLL_MS 20

void
esd_test_leftover_free(EsdTestLeftover *leftover)
{
	g_free(leftover->name);
	g_free(leftover);
}

/*
 * The whole of a /proc file, or NULL with errno: ENOENT and ESRCH when the
 * process is gone, EACCES and EPERM when it is not ours to read.
 */
static GByteArray *
read_proc_file(const gchar *path)
{
	g_autoptr(GByteArray) data = g_byte_array_new();
	guint8 buf[4096];
	gint fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			gint saved = errno;
			close(fd);
			errno = saved;
			return NULL;
		}
		if (n == 0)
			break;
		g_byte_array_append(data, buf, (guint)n);
	}
	close(fd);
	return g_steal_pointer(&data);
}

static gboolean
errno_means_skip(gint error)
{
	return error == ENOENT || error == ESRCH || error == EACCES || error == EPERM;
}

static gboolean
block_has_entry(const GByteArray *block, const gchar *entry)
{
	gsize entry_len = strlen(entry);
	const gchar *data = (const gchar *)block->data;
	gsize len = block->len;

	for (gsize pos = 0; pos < len;) {
		gsize item_len = strnlen(data + pos, len - pos);
		if (item_len == entry_len && memcmp(data + pos, entry, entry_len) == 0)
			return TRUE;
		pos += item_len + 1;
	}
	return FALSE;
}

typedef struct {
	gint pid;
	gint ppid;
	gchar state;
	gboolean marked;
	gchar *comm;
} ProcInfo;

static void
proc_info_clear(gpointer data)
{
	g_free(((ProcInfo *)data)->comm);
}

/* pid, state, parent and name from /proc/PID/stat; FALSE once it is gone */
static gboolean
read_stat(const gchar *pid_name, ProcInfo *info)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%s/stat", pid_name);
	g_autoptr(GByteArray) stat = read_proc_file(path);
	const gchar *open_paren;
	const gchar *close_paren;
	g_autofree gchar *text = NULL;

	if (stat == NULL) {
		if (!errno_means_skip(errno))
			g_error("cannot read %s: %s", path, g_strerror(errno));
		return FALSE;
	}
	text = g_strndup((const gchar *)stat->data, stat->len);
	/* "pid (comm) S ppid …": comm may hold spaces and parentheses */
	open_paren = strchr(text, '(');
	close_paren = strrchr(text, ')');
	if (open_paren == NULL || close_paren == NULL || close_paren < open_paren ||
	    strlen(close_paren) < 5)
		g_error("cannot parse %s: %s", path, text);
	info->pid = atoi(text);
	info->state = close_paren[2];
	info->ppid = atoi(close_paren + 4);
	info->comm = g_strndup(open_paren + 1, (gsize)(close_paren - open_paren - 1));
	return TRUE;
}

static gchar *
read_cmdline(gint pid)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/cmdline", pid);
	g_autoptr(GByteArray) cmdline = read_proc_file(path);

	if (cmdline == NULL || cmdline->len == 0)
		return NULL;
	for (guint i = 0; i + 1 < cmdline->len; i++) {
		if (cmdline->data[i] == '\0')
			cmdline->data[i] = ' ';
	}
	return g_strndup((const gchar *)cmdline->data, cmdline->len);
}

/**
 * esd_test_leftovers_find:
 * @var: the marker's name
 * @value: the marker's value
 *
 * Returns: (transfer full) (element-type EsdTestLeftover): every process
 * but this one whose environment holds `@var=@value`, and every zombie
 * whose parent does, in pid order
 */
GPtrArray *
esd_test_leftovers_find(const gchar *var, const gchar *value)
{
	g_autofree gchar *entry = g_strdup_printf("%s=%s", var, value);
	g_autoptr(GArray) procs = g_array_new(FALSE, TRUE, sizeof(ProcInfo));
	g_autoptr(GHashTable) marked = g_hash_table_new(g_direct_hash, g_direct_equal);
	g_autoptr(GError) error = NULL;
	g_autoptr(GDir) dir = g_dir_open("/proc", 0, &error);
	GPtrArray *found = g_ptr_array_new_with_free_func((GDestroyNotify)esd_test_leftover_free);
	const gchar *name;

	g_assert_no_error(error);
	g_array_set_clear_func(procs, proc_info_clear);
	while ((name = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *path = NULL;
		g_autoptr(GByteArray) environ_block = NULL;
		guint64 pid = 0;
		ProcInfo info = {0};

		if (!g_ascii_string_to_unsigned(name, 10, 1, G_MAXINT, &pid, NULL) ||
		    pid == (guint64)getpid())
			continue;
		/* the environment first: one that ends meanwhile is seen as a zombie */
		path = g_strdup_printf("/proc/%s/environ", name);
		environ_block = read_proc_file(path);
		if (environ_block == NULL && !errno_means_skip(errno))
			g_error("cannot read %s: %s", path, g_strerror(errno));
		if (!read_stat(name, &info))
			continue;
		info.marked = environ_block != NULL && block_has_entry(environ_block, entry);
		if (info.marked)
			g_hash_table_add(marked, GINT_TO_POINTER(info.pid));
		g_array_append_val(procs, info);
	}
	for (guint i = 0; i < procs->len; i++) {
		ProcInfo *info = &g_array_index(procs, ProcInfo, i);
		EsdTestLeftover *leftover;

		if (!info->marked && !((info->state == 'Z' || info->state == 'X') &&
				       g_hash_table_contains(marked, GINT_TO_POINTER(info->ppid))))
			continue;
		leftover = g_new0(EsdTestLeftover, 1);
		leftover->pid = info->pid;
		leftover->ppid = info->ppid;
		leftover->state = info->state;
		leftover->marked = info->marked;
		leftover->name = read_cmdline(info->pid);
		if (leftover->name == NULL)
			leftover->name = g_strdup_printf("[%s]", info->comm);
		g_ptr_array_add(found, leftover);
	}
	return found;
}

/* one line per leftover */
gchar *
esd_test_leftovers_describe(GPtrArray *leftovers)
{
	GString *out = g_string_new(NULL);

	for (guint i = 0; i < leftovers->len; i++) {
		EsdTestLeftover *leftover = g_ptr_array_index(leftovers, i);
		g_string_append_printf(out,
				       "\n  pid %d (parent %d, state %c%s): %s",
				       leftover->pid,
				       leftover->ppid,
				       leftover->state,
				       leftover->marked ? ""
							: ", unreaped child of a marked process",
				       leftover->name);
	}
	return g_string_free(out, FALSE);
}

/**
 * esd_test_leftovers_wait_none:
 * @report: (out) (optional): what was left, when something was
 *
 * Waits up to @timeout_ms for every process that esd_test_leftovers_find()
 * reports to go; then SIGKILLs what remains.
 *
 * Returns: TRUE when nothing was left
 */
gboolean
esd_test_leftovers_wait_none(const gchar *var, const gchar *value, guint timeout_ms, gchar **report)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	g_autoptr(GPtrArray) leftovers = esd_test_leftovers_find(var, value);

	while (leftovers->len > 0 && g_get_monotonic_time() < deadline) {
		gint64 next = g_get_monotonic_time() + ESD_TEST_LEFTOVERS_POLL_MS * 1000;
		/* the main context keeps running: a test's clients may still be connected */
		while (g_get_monotonic_time() < next)
			esd_test_iterate(ESD_TEST_LEFTOVERS_POLL_MS);
		g_ptr_array_unref(leftovers);
		leftovers = esd_test_leftovers_find(var, value);
	}
	if (leftovers->len == 0)
		return TRUE;
	if (report != NULL)
		*report = esd_test_leftovers_describe(leftovers);
	/* a zombie goes with its parent */
	for (guint i = 0; i < leftovers->len; i++) {
		EsdTestLeftover *leftover = g_ptr_array_index(leftovers, i);
		if (leftover->marked)
			kill(leftover->pid, SIGKILL);
	}
	return FALSE;
}

void
esd_test_assert_nothing_left_impl(const gchar *file,
				  gint line,
				  const gchar *func,
				  const gchar *var,
				  const gchar *value,
				  guint timeout_ms)
{
	g_autofree gchar *report = NULL;
	g_autofree gchar *message = NULL;

	if (esd_test_leftovers_wait_none(var, value, timeout_ms, &report))
		return;
	message = g_strdup_printf("processes left behind after %u ms (now killed):%s",
				  timeout_ms,
				  report);
	g_assertion_message(G_LOG_DOMAIN, file, line, func, message);
}
