/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esd-sandbox-glob.h"
#include "esd-sandbox-mounts.h"

/*
 * The mount plan: the resolved rules of a restricted policy as bwrap options.
 * bwrap does every mount in its own namespaces; this file only looks at the
 * host (stat, lstat, readdir) to decide what to ask for.
 *
 * Rules are applied least specific first, so that a more specific rule
 * mounts over a less specific one; on the same depth the order is read,
 * write, deny. Without a rule for `/` the root is bwrap's empty tmpfs,
 * remounted read-only at the end.
 *   read   --ro-bind P P (--ro-bind-try for special paths); missing: skipped
 *   write  --bind P P; missing: skipped; then the protected names inside it
 *   deny   a directory: --perms 0000 --tmpfs P, remounted read-only at the end
 *          (0111 when a more specific rule below it must stay reachable);
 *          anything else: --perms 0000 --ro-bind-data EMPTY P. Access gives
 *          EACCES, as the reference's "Permission denied". A missing denied
 *          path that the sandbox could create gets an empty file at its first
 *          missing component.
 * `/dev` is always bwrap's --dev (standard devices, also when `/` is
 * writable) and `/proc` its --proc, with /proc/sys bound read-only again:
 * bwrap 0.8 leaves it writable (it tests the directory, which procfs always
 * reports read-only), and root in a sandbox that shares the network could
 * then change the host's net sysctls.
 *
 * Protected names: inside every writable directory, `.git`, `.codex`,
 * `.agents` and `.aws` are bound read-only, and so is the directory a `.git`
 * file points to when it is writable. A missing one is masked with an empty
 * read-only tmpfs, so that it cannot be created; bwrap then creates the mount
 * point on the host, which is recorded as a synthetic target and removed by
 * esd_sandbox_mounts_release() if it is still an empty directory (or empty
 * file). The mask is left out where the daemon itself could not create the
 * name (the sandbox runs with its uid) and directly in `/`, where it would
 * put `/.git` on the host. A protected name that is a symbolic link cannot be
 * protected (mount(2) follows it, and the link itself could be replaced), so
 * the launch fails instead.
 *
 * Synthetic targets are shared between the launches of this process through
 * a reference count: a second sandbox that finds the mount point created by
 * the first treats it as synthetic as well, and the last one to finish
 * removes it. Removing it earlier would detach the mount in the sandbox that
 * still uses it. Other processes on the host are not coordinated with.
 */

typedef struct {
	gchar *path;
	EsdSandboxAccess access;
	guint depth;
	gboolean special;
	gboolean protect;
} EsdPlanEntry;

typedef struct {
	const EsdSandboxPolicy *policy;
	GHashTable *by_path; /* path → EsdPlanEntry, owned */
	GPtrArray *entries;  /* sorted view of by_path */
	GPtrArray *deferred; /* deny tmpfs mounts to remount read-only at the end */
	EsdSandboxMounts *mounts;
} EsdPlan;

/*
 * Synthetic mount targets are counted per process: a mask a running sandbox
 * still relies on must not be removed when another sandbox on the same root
 * ends. The daemon links this library once; fs sandboxes reach it through
 * the host's sandbox service (server/esd-sandbox-host.c).
 */
typedef struct {
	GMutex lock;
	GHashTable *refs;  /* path → reference count */
	GPtrArray *hidden; /* of gchar*: esd_sandbox_hide_path() */
} EsdSyntheticRegistry;

static EsdSyntheticRegistry esd_synthetic_registry;
static EsdSyntheticRegistry *const esd_synthetic = &esd_synthetic_registry;

__attribute__((constructor)) static void
esd_synthetic_init(void)
{
	esd_synthetic->refs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	esd_synthetic->hidden = g_ptr_array_new_with_free_func(g_free);
}

/**
 * esd_sandbox_hide_path:
 * @path: an absolute path on the host
 *
 * Keeps @path out of every restricted file system from now on: where a
 * sandbox would see it, it sees an empty file without permissions instead,
 * unless a rule of its policy names exactly @path (or its real path). For
 * what lets a command ask for an unsandboxed one (the daemon's listening
 * sockets, the bus sockets) and the secrets that authenticate to it.
 * connect(2) on a socket file needs no write access to its mount, so a
 * read-only bind does not protect it. The real path is recorded as well,
 * as the mount lands on it.
 */
void
esd_sandbox_hide_path(const gchar *path)
{
	g_autofree gchar *canonical = NULL;
	g_autofree gchar *real = NULL;

	g_return_if_fail(path != NULL && g_path_is_absolute(path));

	canonical = g_canonicalize_filename(path, "/");
	real = realpath(canonical, NULL);
	g_mutex_lock(&esd_synthetic->lock);
	for (guint i = 0; i < 2; i++) {
		const gchar *add = i == 0 ? canonical : real;
		if (add != NULL && !g_ptr_array_find_with_equal_func(esd_synthetic->hidden,
								     add,
								     g_str_equal,
								     NULL))
			g_ptr_array_add(esd_synthetic->hidden, g_strdup(add));
	}
	g_mutex_unlock(&esd_synthetic->lock);
}

/**
 * esd_sandbox_dup_hidden_paths:
 *
 * Returns: (transfer full): the paths given to esd_sandbox_hide_path(), in order
 */
gchar **
esd_sandbox_dup_hidden_paths(void)
{
	g_autoptr(GStrvBuilder) builder = g_strv_builder_new();

	g_mutex_lock(&esd_synthetic->lock);
	for (guint i = 0; i < esd_synthetic->hidden->len; i++)
		g_strv_builder_add(builder, g_ptr_array_index(esd_synthetic->hidden, i));
	g_mutex_unlock(&esd_synthetic->lock);
	return g_strv_builder_end(builder);
}

/* takes a reference on @path if it is already synthetic or does not exist */
static gboolean
esd_synthetic_acquire(const gchar *path)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&esd_synthetic->lock);
	gpointer refs = NULL;
	struct stat st;

	if (g_hash_table_lookup_extended(esd_synthetic->refs, path, NULL, &refs)) {
		g_hash_table_insert(esd_synthetic->refs,
				    g_strdup(path),
				    GUINT_TO_POINTER(GPOINTER_TO_UINT(refs) + 1));
		return TRUE;
	}
	if (lstat(path, &st) == 0 || errno != ENOENT)
		return FALSE;
	g_hash_table_insert(esd_synthetic->refs, g_strdup(path), GUINT_TO_POINTER(1));
	return TRUE;
}

/* drops a reference; the last one removes the target if it is still empty */
static void
esd_synthetic_release(const gchar *path, gboolean remove_target)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&esd_synthetic->lock);
	gpointer refs = NULL;
	struct stat st;

	if (!g_hash_table_lookup_extended(esd_synthetic->refs, path, NULL, &refs))
		return;
	if (GPOINTER_TO_UINT(refs) > 1) {
		g_hash_table_insert(esd_synthetic->refs,
				    g_strdup(path),
				    GUINT_TO_POINTER(GPOINTER_TO_UINT(refs) - 1));
		return;
	}
	g_hash_table_remove(esd_synthetic->refs, path);
	if (!remove_target || lstat(path, &st) != 0)
		return;
	/* never recursive: only what is still an empty mount point goes */
	if (S_ISDIR(st.st_mode) && rmdir(path) != 0)
		g_debug("keeping mount point %s: %s", path, g_strerror(errno));
	else if (S_ISREG(st.st_mode) && st.st_size == 0 && unlink(path) != 0)
		g_debug("keeping mount point %s: %s", path, g_strerror(errno));
}

static void
esd_plan_entry_free(gpointer data)
{
	EsdPlanEntry *entry = data;
	g_free(entry->path);
	g_free(entry);
}

static void
esd_plan_add(EsdPlan *plan, const gchar *path, EsdSandboxAccess access, gboolean special)
{
	EsdPlanEntry *entry = g_hash_table_lookup(plan->by_path, path);

	if (entry != NULL) {
		entry->access = MAX(entry->access, access);
		entry->special = entry->special && special;
		return;
	}
	entry = g_new0(EsdPlanEntry, 1);
	entry->path = g_strdup(path);
	entry->access = access;
	entry->depth = esd_sandbox_path_depth(path);
	entry->special = special;
	g_hash_table_insert(plan->by_path, entry->path, entry);
}

static void
esd_plan_add_protect(EsdPlan *plan, const gchar *path)
{
	EsdPlanEntry *entry;

	/* an explicit rule for the same path decides on its own */
	if (g_hash_table_contains(plan->by_path, path))
		return;
	entry = g_new0(EsdPlanEntry, 1);
	entry->path = g_strdup(path);
	entry->access = ESD_SANDBOX_ACCESS_READ;
	entry->depth = esd_sandbox_path_depth(path);
	entry->protect = TRUE;
	g_hash_table_insert(plan->by_path, entry->path, entry);
}

/* /dev and /proc are bwrap's own; nothing of the host's /proc is bound */
static gboolean
esd_plan_path_is_reserved(const gchar *path)
{
	return g_strcmp0(path, "/dev") == 0 || esd_sandbox_path_has_prefix(path, "/proc");
}

static gboolean
esd_plan_add_rules(EsdPlan *plan, GError **error)
{
	const EsdSandboxPolicy *policy = plan->policy;

	for (guint i = 0; i < policy->rules->len; i++) {
		const EsdSandboxRule *rule = g_ptr_array_index(policy->rules, i);
		g_autoptr(GPtrArray) matches = NULL;

		if (!rule->is_glob) {
			if (!esd_plan_path_is_reserved(rule->path))
				esd_plan_add(plan, rule->path, rule->access, rule->special);
			continue;
		}
		/* only deny globs have an effect, as in the reference */
		if (rule->access != ESD_SANDBOX_ACCESS_DENY)
			continue;
		matches =
		    esd_sandbox_glob_expand(rule->pattern, policy->glob_scan_max_depth, error);
		if (matches == NULL)
			return FALSE;
		for (guint j = 0; j < matches->len; j++) {
			const gchar *match = g_ptr_array_index(matches, j);
			if (!esd_plan_path_is_reserved(match))
				esd_plan_add(plan, match, ESD_SANDBOX_ACCESS_DENY, FALSE);
		}
	}
	return TRUE;
}

/* the directory named by the `gitdir:` line of a `.git` file, if it exists */
static gchar *
esd_plan_read_gitdir(const gchar *dot_git)
{
	g_autofree gchar *contents = NULL;
	g_autofree gchar *base = NULL;
	g_autofree gchar *joined = NULL;
	gsize len = 0;
	gchar *value;

	if (!g_file_get_contents(dot_git, &contents, &len, NULL) || len > 4096)
		return NULL;
	value = g_strstrip(contents);
	if (!g_str_has_prefix(value, "gitdir:"))
		return NULL;
	value = g_strstrip(value + strlen("gitdir:"));
	if (value[0] == '\0')
		return NULL;
	base = g_path_get_dirname(dot_git);
	joined = g_canonicalize_filename(value, base);
	if (!g_file_test(joined, G_FILE_TEST_IS_DIR))
		return NULL;
	return g_steal_pointer(&joined);
}

static void
esd_plan_add_protected(EsdPlan *plan)
{
	const gchar *const names[] = ESD_SANDBOX_PROTECTED_NAMES;
	g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func(g_free);
	GHashTableIter iter;
	EsdPlanEntry *entry;

	g_hash_table_iter_init(&iter, plan->by_path);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&entry)) {
		if (entry->access == ESD_SANDBOX_ACCESS_WRITE &&
		    g_file_test(entry->path, G_FILE_TEST_IS_DIR))
			g_ptr_array_add(roots, g_strdup(entry->path));
	}
	for (guint i = 0; i < roots->len; i++) {
		const gchar *root = g_ptr_array_index(roots, i);
		for (guint j = 0; names[j] != NULL; j++) {
			g_autofree gchar *path = g_build_filename(root, names[j], NULL);
			g_autofree gchar *gitdir = NULL;
			struct stat st;

			esd_plan_add_protect(plan, path);
			if (j != 0 || lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
				continue;
			/* a worktree or submodule: its real git directory is protected too */
			gitdir = esd_plan_read_gitdir(path);
			if (gitdir != NULL && esd_sandbox_policy_access_for(plan->policy, gitdir) ==
						  ESD_SANDBOX_ACCESS_WRITE)
				esd_plan_add_protect(plan, gitdir);
		}
	}
}

static gint
esd_plan_entry_cmp(gconstpointer a, gconstpointer b)
{
	const EsdPlanEntry *ea = *(const EsdPlanEntry *const *)a;
	const EsdPlanEntry *eb = *(const EsdPlanEntry *const *)b;

	if (ea->depth != eb->depth)
		return ea->depth < eb->depth ? -1 : 1;
	if (ea->access != eb->access)
		return ea->access < eb->access ? -1 : 1;
	return strcmp(ea->path, eb->path);
}

static void
esd_plan_push(EsdPlan *plan, const gchar *arg)
{
	g_ptr_array_add(plan->mounts->args, g_strdup(arg));
}

static void
esd_plan_push3(EsdPlan *plan, const gchar *option, const gchar *a, const gchar *b)
{
	esd_plan_push(plan, option);
	esd_plan_push(plan, a);
	esd_plan_push(plan, b);
}

/* the access of the closest less specific entry: what the path has before its own */
static EsdSandboxAccess
esd_plan_covered(EsdPlan *plan, guint index)
{
	const EsdPlanEntry *entry = g_ptr_array_index(plan->entries, index);

	for (guint i = index; i > 0; i--) {
		const EsdPlanEntry *outer = g_ptr_array_index(plan->entries, i - 1);
		if (outer->depth < entry->depth &&
		    esd_sandbox_path_has_prefix(entry->path, outer->path))
			return outer->access;
	}
	return ESD_SANDBOX_ACCESS_DENY;
}

/* whether a more specific entry below @index must stay reachable */
static gboolean
esd_plan_has_visible_descendant(EsdPlan *plan, guint index)
{
	const EsdPlanEntry *entry = g_ptr_array_index(plan->entries, index);

	for (guint i = index + 1; i < plan->entries->len; i++) {
		const EsdPlanEntry *inner = g_ptr_array_index(plan->entries, i);
		if (inner->access != ESD_SANDBOX_ACCESS_DENY && inner->depth > entry->depth &&
		    esd_sandbox_path_has_prefix(inner->path, entry->path))
			return TRUE;
	}
	return FALSE;
}

static gboolean
esd_plan_ensure_empty_fd(EsdPlan *plan, GError **error)
{
	gint fd;

	if (plan->mounts->empty_fd >= 0)
		return TRUE;
	fd = memfd_create("esd-sandbox-empty", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		gint errsv = errno;
		g_set_error(error,
			    G_IO_ERROR,
			    g_io_error_from_errno(errsv),
			    "memfd_create: %s",
			    g_strerror(errsv));
		return FALSE;
	}
	/* bwrap copies from it for every masked file: it must stay empty */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
		g_debug("cannot seal the empty memfd: %s", g_strerror(errno));
	plan->mounts->empty_fd = fd;
	return TRUE;
}

/* whether one more descriptor may go to bwrap */
static gboolean
esd_plan_check_fds(EsdPlan *plan, GError **error)
{
	if (plan->mounts->pinned->len < ESD_SANDBOX_MAX_FDS)
		return TRUE;
	g_set_error(error,
		    G_IO_ERROR,
		    G_IO_ERROR_TOO_MANY_OPEN_FILES,
		    "the policy masks or binds more than %u paths",
		    (guint)ESD_SANDBOX_MAX_FDS);
	return FALSE;
}

/*
 * bwrap closes the descriptor of every --ro-bind-data once it has copied
 * from it, so each masked file gets a descriptor of its own (a dup of the
 * sealed empty memfd); sharing one would make bwrap read whatever it
 * opened next under that number.
 */
static gboolean
esd_plan_mask_file(EsdPlan *plan, const gchar *path, GError **error)
{
	gint fd;

	if (!esd_plan_ensure_empty_fd(plan, error) || !esd_plan_check_fds(plan, error))
		return FALSE;
	fd = fcntl(plan->mounts->empty_fd, F_DUPFD_CLOEXEC, ESD_SANDBOX_FIRST_FD);
	if (fd < 0) {
		gint errsv = errno;
		g_set_error(error,
			    G_IO_ERROR,
			    g_io_error_from_errno(errsv),
			    "cannot duplicate the empty memfd: %s",
			    g_strerror(errsv));
		return FALSE;
	}
	g_array_append_val(plan->mounts->pinned, fd);
	esd_plan_push(plan, "--perms");
	esd_plan_push(plan, "0000");
	esd_plan_push(plan, "--ro-bind-data");
	g_ptr_array_add(plan->mounts->args, g_strdup_printf("%d", fd));
	esd_plan_push(plan, path);
	return TRUE;
}

/* a protected name (or gitdir) inside a writable root */
/*
 * Binds what @path names now, through a descriptor: bwrap would resolve a
 * path again when it mounts, and a writable root swapped for a symlink to a
 * denied directory in between would expose that directory. The descriptor
 * is checked by the path it really has: a source that resolves somewhere
 * the policy does not give @access is not bound at all.
 */
static gboolean
esd_plan_bind_pinned(EsdPlan *plan,
		     const gchar *path,
		     EsdSandboxAccess access,
		     gboolean no_follow,
		     GError **error)
{
	g_autofree gchar *proc = NULL;
	g_autofree gchar *real = NULL;
	EsdSandboxAccess granted;
	struct stat st;
	gint fd;

	if (!esd_plan_check_fds(plan, error))
		return FALSE;
	fd =
	    esd_sandbox_fd_above_std(open(path, O_PATH | O_CLOEXEC | (no_follow ? O_NOFOLLOW : 0)));
	if (fd < 0)
		return TRUE;
	proc = g_strdup_printf("/proc/self/fd/%d", fd);
	real = g_file_read_link(proc, NULL);
	if (fstat(fd, &st) != 0 || S_ISLNK(st.st_mode) || real == NULL) {
		close(fd);
		return TRUE;
	}
	granted = esd_sandbox_policy_access_for(plan->policy, real);
	if (granted == ESD_SANDBOX_ACCESS_DENY ||
	    (access == ESD_SANDBOX_ACCESS_WRITE && granted != ESD_SANDBOX_ACCESS_WRITE)) {
		g_debug("not binding %s: it resolves to %s, which the policy does not open",
			path,
			real);
		close(fd);
		return TRUE;
	}
	g_array_append_val(plan->mounts->pinned, fd);
	esd_plan_push(plan, access == ESD_SANDBOX_ACCESS_WRITE ? "--bind-fd" : "--ro-bind-fd");
	g_ptr_array_add(plan->mounts->args, g_strdup_printf("%d", fd));
	esd_plan_push(plan, path);
	return TRUE;
}

static gboolean
esd_plan_emit_protect(EsdPlan *plan, const EsdPlanEntry *entry, GError **error)
{
	g_autofree gchar *parent = g_path_get_dirname(entry->path);
	struct stat st;

	/*
	 * missing (or created by another of our sandboxes): mask it if it could be
	 * created; not in `/` itself, where the mask would put `/.git` on the host
	 */
	if (g_strcmp0(parent, "/") != 0 && access(parent, W_OK) == 0 &&
	    esd_synthetic_acquire(entry->path)) {
		g_ptr_array_add(plan->mounts->synthetic, g_strdup(entry->path));
		esd_plan_push(plan, "--perms");
		esd_plan_push(plan, "0555");
		esd_plan_push(plan, "--tmpfs");
		esd_plan_push(plan, entry->path);
		esd_plan_push(plan, "--remount-ro");
		esd_plan_push(plan, entry->path);
		return TRUE;
	}
	if (lstat(entry->path, &st) != 0)
		return TRUE;
	if (S_ISLNK(st.st_mode)) {
		g_set_error(
		    error,
		    G_IO_ERROR,
		    G_IO_ERROR_NOT_SUPPORTED,
		    "cannot keep %s read-only: it is a symbolic link in a writable directory",
		    entry->path);
		return FALSE;
	}
	return esd_plan_bind_pinned(plan, entry->path, ESD_SANDBOX_ACCESS_READ, TRUE, error);
}

/* the first component of @path that does not exist on the host */
static gchar *
esd_plan_first_missing(const gchar *path)
{
	g_autofree gchar *current = g_strdup(path);

	for (;;) {
		g_autofree gchar *parent = g_path_get_dirname(current);
		struct stat st;
		if (g_strcmp0(parent, current) == 0 || lstat(parent, &st) == 0)
			return g_steal_pointer(&current);
		g_free(current);
		current = g_steal_pointer(&parent);
	}
}

/* a denied path that does not exist yet must not be created either */
static gboolean
esd_plan_deny_missing(EsdPlan *plan, const gchar *path, GError **error)
{
	g_autofree gchar *first = esd_plan_first_missing(path);
	g_autofree gchar *parent = g_path_get_dirname(first);
	EsdPlanEntry *protect = g_hash_table_lookup(plan->by_path, first);

	if (protect != NULL && protect->protect)
		return TRUE;
	if (esd_sandbox_policy_access_for(plan->policy, parent) != ESD_SANDBOX_ACCESS_WRITE ||
	    access(parent, W_OK) != 0 || !esd_synthetic_acquire(first))
		return TRUE;
	g_ptr_array_add(plan->mounts->synthetic, g_strdup(first));
	return esd_plan_mask_file(plan, first, error);
}

static gboolean
esd_plan_emit_deny(EsdPlan *plan, guint index, GError **error)
{
	const EsdPlanEntry *entry = g_ptr_array_index(plan->entries, index);
	struct stat st;

	if (stat(entry->path, &st) != 0)
		return esd_plan_deny_missing(plan, entry->path, error);
	if (esd_plan_covered(plan, index) == ESD_SANDBOX_ACCESS_DENY)
		return TRUE;
	if (!S_ISDIR(st.st_mode))
		return esd_plan_mask_file(plan, entry->path, error);
	esd_plan_push(plan, "--perms");
	esd_plan_push(plan, esd_plan_has_visible_descendant(plan, index) ? "0111" : "0000");
	esd_plan_push(plan, "--tmpfs");
	esd_plan_push(plan, entry->path);
	/* frozen only at the end: bwrap still creates mount points in it */
	g_ptr_array_add(plan->deferred, g_strdup(entry->path));
	return TRUE;
}

static gboolean
esd_plan_emit(EsdPlan *plan, guint index, GError **error)
{
	const EsdPlanEntry *entry = g_ptr_array_index(plan->entries, index);
	struct stat st;

	if (entry->protect)
		return esd_plan_emit_protect(plan, entry, error);
	switch (entry->access) {
	case ESD_SANDBOX_ACCESS_READ:
		if (stat(entry->path, &st) != 0 ||
		    esd_plan_covered(plan, index) == ESD_SANDBOX_ACCESS_READ)
			return TRUE;
		return esd_plan_bind_pinned(plan,
					    entry->path,
					    ESD_SANDBOX_ACCESS_READ,
					    FALSE,
					    error);
	case ESD_SANDBOX_ACCESS_WRITE:
		if (stat(entry->path, &st) == 0)
			return esd_plan_bind_pinned(plan,
						    entry->path,
						    ESD_SANDBOX_ACCESS_WRITE,
						    FALSE,
						    error);
		return TRUE;
	case ESD_SANDBOX_ACCESS_DENY:
	default:
		return esd_plan_emit_deny(plan, index, error);
	}
}

static gboolean esd_sandbox_mounts_fresh_proc = TRUE;

/* for esd_bwrap_available(): FALSE when a fresh proc cannot be mounted here (nested) */
void
esd_sandbox_mounts_set_fresh_proc(gboolean fresh)
{
	esd_sandbox_mounts_fresh_proc = fresh;
}

static void
esd_plan_push_system(EsdPlan *plan)
{
	esd_plan_push(plan, "--dev");
	esd_plan_push(plan, "/dev");
	if (!esd_sandbox_mounts_fresh_proc) {
		esd_plan_push3(plan, "--ro-bind", "/proc", "/proc");
		return;
	}
	esd_plan_push(plan, "--proc");
	esd_plan_push(plan, "/proc");
	/* not --ro-bind-try: without it root in the sandbox could write the host's net sysctls */
	esd_plan_push3(plan, "--ro-bind", "/proc/sys", "/proc/sys");
}

/* whether a rule of the policy names @path itself, not a directory above it */
static gboolean
esd_plan_names_exactly(EsdPlan *plan, const gchar *path)
{
	for (guint i = 0; i < plan->policy->rules->len; i++) {
		const EsdSandboxRule *rule = g_ptr_array_index(plan->policy->rules, i);
		if (!rule->is_glob && rule->access != ESD_SANDBOX_ACCESS_DENY &&
		    g_strcmp0(rule->path, path) == 0)
			return TRUE;
	}
	return FALSE;
}

/* after every bind, so that no rule mounts over a mask again */
static gboolean
esd_plan_hide(EsdPlan *plan, GError **error)
{
	g_auto(GStrv) hidden = esd_sandbox_dup_hidden_paths();
	struct stat st;

	for (guint i = 0; hidden[i] != NULL; i++) {
		/* denied or outside every rule: not in the sandbox at all */
		if (esd_sandbox_policy_access_for(plan->policy, hidden[i]) ==
			ESD_SANDBOX_ACCESS_DENY ||
		    esd_plan_names_exactly(plan, hidden[i]) || lstat(hidden[i], &st) != 0 ||
		    S_ISLNK(st.st_mode))
			continue;
		if (S_ISDIR(st.st_mode)) {
			esd_plan_push(plan, "--perms");
			esd_plan_push(plan, "0000");
			esd_plan_push(plan, "--tmpfs");
			esd_plan_push(plan, hidden[i]);
			g_ptr_array_add(plan->deferred, g_strdup(hidden[i]));
			continue;
		}
		if (!esd_plan_mask_file(plan, hidden[i], error))
			return FALSE;
	}
	return TRUE;
}

static gboolean
esd_plan_build_restricted(EsdPlan *plan, GError **error)
{
	GHashTableIter iter;
	EsdPlanEntry *entry;
	EsdPlanEntry *root;
	guint start = 0;

	if (!esd_plan_add_rules(plan, error))
		return FALSE;
	esd_plan_add_protected(plan);
	g_hash_table_iter_init(&iter, plan->by_path);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&entry))
		g_ptr_array_add(plan->entries, entry);
	g_ptr_array_sort(plan->entries, esd_plan_entry_cmp);

	root = g_hash_table_lookup(plan->by_path, "/");
	if (root != NULL) {
		start = 1;
		if (root->access == ESD_SANDBOX_ACCESS_READ)
			esd_plan_push3(plan, "--ro-bind", "/", "/");
		else if (root->access == ESD_SANDBOX_ACCESS_WRITE)
			esd_plan_push3(plan, "--bind", "/", "/");
	}
	esd_plan_push_system(plan);
	for (guint i = start; i < plan->entries->len; i++) {
		if (!esd_plan_emit(plan, i, error))
			return FALSE;
	}
	if (!esd_plan_hide(plan, error))
		return FALSE;
	for (guint i = 0; i < plan->deferred->len; i++) {
		esd_plan_push(plan, "--remount-ro");
		esd_plan_push(plan, g_ptr_array_index(plan->deferred, i));
	}
	/* bwrap's own root tmpfs: nothing may be created in it */
	if (root == NULL || root->access == ESD_SANDBOX_ACCESS_DENY) {
		esd_plan_push(plan, "--remount-ro");
		esd_plan_push(plan, "/");
	}
	return TRUE;
}

/**
 * esd_sandbox_mounts_build:
 * @policy: a policy
 * @mounts: (out caller-allocates): the result; clear it with esd_sandbox_mounts_clear()
 * @error: return location for a #GError, or %NULL
 *
 * Builds the file-system options of bwrap for @policy. On failure every
 * synthetic target taken so far is released again.
 *
 * Returns: %TRUE on success
 */
gboolean
esd_sandbox_mounts_build(const EsdSandboxPolicy *policy, EsdSandboxMounts *mounts, GError **error)
{
	g_autoptr(GHashTable) by_path =
	    g_hash_table_new_full(g_str_hash, g_str_equal, NULL, esd_plan_entry_free);
	g_autoptr(GPtrArray) entries = g_ptr_array_new();
	g_autoptr(GPtrArray) deferred = g_ptr_array_new_with_free_func(g_free);
	EsdPlan plan = {policy, by_path, entries, deferred, mounts};

	g_return_val_if_fail(policy != NULL, FALSE);
	g_return_val_if_fail(mounts != NULL, FALSE);

	mounts->args = g_ptr_array_new_with_free_func(g_free);
	mounts->synthetic = g_ptr_array_new_with_free_func(g_free);
	mounts->empty_fd = -1;
	mounts->pinned = g_array_new(FALSE, FALSE, sizeof(gint));
	mounts->released = FALSE;
	if (policy->profile != ESD_SANDBOX_PROFILE_MANAGED ||
	    policy->fs != ESD_SANDBOX_FS_RESTRICTED) {
		esd_plan_push3(&plan, "--bind", "/", "/");
		esd_plan_push_system(&plan);
		return TRUE;
	}
	if (!esd_plan_build_restricted(&plan, error)) {
		esd_sandbox_mounts_release(mounts, FALSE);
		return FALSE;
	}
	return TRUE;
}

/**
 * esd_sandbox_mounts_release:
 * @mounts: a built plan
 * @remove_targets: whether the sandbox has exited, so that empty synthetic
 *   mount points may be removed from the host
 *
 * Drops the references on the synthetic targets, once.
 */
void
esd_sandbox_mounts_release(EsdSandboxMounts *mounts, gboolean remove_targets)
{
	if (mounts->released || mounts->synthetic == NULL)
		return;
	mounts->released = TRUE;
	for (guint i = mounts->synthetic->len; i > 0; i--)
		esd_synthetic_release(g_ptr_array_index(mounts->synthetic, i - 1), remove_targets);
}

void
esd_sandbox_mounts_clear(EsdSandboxMounts *mounts)
{
	esd_sandbox_mounts_release(mounts, FALSE);
	g_clear_pointer(&mounts->args, g_ptr_array_unref);
	g_clear_pointer(&mounts->synthetic, g_ptr_array_unref);
	if (mounts->empty_fd >= 0) {
		close(mounts->empty_fd);
		mounts->empty_fd = -1;
	}
	for (guint i = 0; mounts->pinned != NULL && i < mounts->pinned->len; i++)
		close(g_array_index(mounts->pinned, gint, i));
	g_clear_pointer(&mounts->pinned, g_array_unref);
}

/* one mount of a built plan, as the sandbox sees it */
typedef struct {
	const gchar *target;
	gboolean identity; /* the host's files at the same path */
	gboolean writable;
} EsdDirectMount;

static gchar *
esd_direct_fd_path(const gchar *fd_text)
{
	g_autofree gchar *proc = g_strdup_printf("/proc/self/fd/%s", fd_text);
	return g_file_read_link(proc, NULL);
}

/* whether @path is absolute and has no empty, `.` or `..` component, as the helper receives it */
static gboolean
esd_direct_path_is_normal(const gchar *path)
{
	if (path[0] != '/')
		return FALSE;
	if (path[1] == '\0')
		return TRUE;
	for (const gchar *p = path; *p != '\0';) {
		const gchar *name = p + 1;
		gsize len = strcspn(name, "/");
		if (len == 0 || (len == 1 && name[0] == '.') ||
		    (len == 2 && name[0] == '.' && name[1] == '.'))
			return FALSE;
		p = name + len;
	}
	return TRUE;
}

/*
 * The command's extra files, as esd-bwrap.c binds them: read-only at their
 * real path, with a link from the name where the policy denies it. A read
 * sees the same content through a read-only bind of the same file, so for
 * @read_only only those links count (a denied name is not the host's), and
 * no real path needs resolving.
 */
static void
esd_direct_add_files(GArray *list,
		     GPtrArray *owned,
		     const EsdSandboxPolicy *policy,
		     gboolean read_only,
		     const gchar *const *ro_files)
{
	for (guint j = 0; ro_files != NULL && ro_files[j] != NULL; j++) {
		g_autofree gchar *name = NULL;
		gchar *real;
		EsdDirectMount file = {NULL, TRUE, FALSE};

		if (!g_path_is_absolute(ro_files[j]))
			continue;
		name = g_canonicalize_filename(ro_files[j], "/");
		if (read_only) {
			if (esd_sandbox_policy_access_for(policy, name) ==
			    ESD_SANDBOX_ACCESS_DENY) {
				EsdDirectMount link = {g_steal_pointer(&name), FALSE, FALSE};
				g_ptr_array_add(owned, (gpointer)link.target);
				g_array_append_val(list, link);
			}
			continue;
		}
		real = realpath(name, NULL);
		if (real == NULL)
			continue;
		g_ptr_array_add(owned, real);
		file.target = real;
		g_array_append_val(list, file);
		if (g_strcmp0(name, real) != 0) {
			/* a link bwrap may make for the name: not the host's */
			EsdDirectMount link = {g_strdup(name), FALSE, FALSE};
			g_ptr_array_add(owned, (gpointer)link.target);
			g_array_append_val(list, link);
		}
	}
}

/*
 * The mounts of @mounts in order, after bwrap's empty root; FALSE for an
 * option this reading does not know, so that the caller fails closed.
 */
static gboolean
esd_direct_read_plan(EsdSandboxMounts *mounts,
		     GArray *list,
		     GPtrArray *owned,
		     const EsdSandboxPolicy *policy,
		     gboolean read_only,
		     const gchar *const *ro_files)
{
	GPtrArray *args = mounts->args;
	EsdDirectMount root = {"/", FALSE, TRUE};
	guint tail;

	g_array_append_val(list, root);
	for (tail = args->len; tail >= 2; tail -= 2) {
		if (g_strcmp0(g_ptr_array_index(args, tail - 2), "--remount-ro") != 0)
			break;
	}
	for (guint i = 0; i < args->len;) {
		const gchar *option = g_ptr_array_index(args, i);
		guint left = args->len - i - 1;
		EsdDirectMount mount = {NULL, FALSE, TRUE};

		/* the command's files go before the final read-only remounts */
		if (i == tail)
			esd_direct_add_files(list, owned, policy, read_only, ro_files);
		if (g_strcmp0(option, "--perms") == 0 && left >= 1) {
			i += 2;
			continue;
		}
		if (g_strcmp0(option, "--remount-ro") == 0 && left >= 1) {
			const gchar *target = g_ptr_array_index(args, i + 1);
			for (guint j = list->len; j > 0; j--) {
				EsdDirectMount *m = &g_array_index(list, EsdDirectMount, j - 1);
				if (g_strcmp0(m->target, target) == 0) {
					m->writable = FALSE;
					break;
				}
			}
			i += 2;
			continue;
		}
		if ((g_strcmp0(option, "--dev") == 0 || g_strcmp0(option, "--proc") == 0 ||
		     g_strcmp0(option, "--tmpfs") == 0) &&
		    left >= 1) {
			mount.target = g_ptr_array_index(args, i + 1);
			i += 2;
		} else if ((g_strcmp0(option, "--ro-bind") == 0 ||
			    g_strcmp0(option, "--bind") == 0) &&
			   left >= 2) {
			mount.target = g_ptr_array_index(args, i + 2);
			mount.identity =
			    g_strcmp0(g_ptr_array_index(args, i + 1), mount.target) == 0;
			mount.writable = g_strcmp0(option, "--bind") == 0;
			i += 3;
		} else if ((g_strcmp0(option, "--ro-bind-fd") == 0 ||
			    g_strcmp0(option, "--bind-fd") == 0) &&
			   left >= 2) {
			g_autofree gchar *source =
			    esd_direct_fd_path(g_ptr_array_index(args, i + 1));
			mount.target = g_ptr_array_index(args, i + 2);
			mount.identity = source != NULL && g_strcmp0(source, mount.target) == 0;
			mount.writable = g_strcmp0(option, "--bind-fd") == 0;
			i += 3;
		} else if (g_strcmp0(option, "--ro-bind-data") == 0 && left >= 2) {
			mount.target = g_ptr_array_index(args, i + 2);
			mount.writable = FALSE;
			i += 3;
		} else {
			g_debug("not direct: unknown mount option %s", option);
			return FALSE;
		}
		g_array_append_val(list, mount);
	}
	if (tail == args->len)
		esd_direct_add_files(list, owned, policy, read_only, ro_files);
	return TRUE;
}

/**
 * esd_sandbox_mounts_check_direct:
 * @policy: a restricted policy
 * @path: an absolute, normalised path
 * @access: %ESD_SANDBOX_ACCESS_READ or %ESD_SANDBOX_ACCESS_WRITE
 * @tree: whether what is below @path is reached as well
 * @ro_files: (nullable): the extra read-only files of the command
 *
 * Builds the mount plan a sandbox under @policy would get now and tells
 * whether it shows @path as the host's own file, with @access: the last
 * mount on the way to @path binds the same host path (not a mask, a tmpfs,
 * `/dev` or `/proc`), is writable for %ESD_SANDBOX_ACCESS_WRITE and is not
 * @path itself then (a mount point cannot be replaced or removed); for
 * @tree, no mount at all lies below @path (a read also accepts binds of the
 * host's own files there). Anything this cannot tell gives %FALSE: deny
 * globs, `/sys` (whose network view differs), an unknown option, a plan
 * that cannot be built.
 *
 * Returns: %TRUE if a request may run outside the sandbox with the same
 *   result
 */
gboolean
esd_sandbox_mounts_check_direct(const EsdSandboxPolicy *policy,
				const gchar *path,
				EsdSandboxAccess access,
				gboolean tree,
				const gchar *const *ro_files)
{
	g_auto(EsdSandboxMounts) mounts = {.empty_fd = -1};
	g_autoptr(GArray) list = g_array_new(FALSE, FALSE, sizeof(EsdDirectMount));
	g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	const EsdDirectMount *visible = NULL;
	EsdSandboxAccess granted;

	g_return_val_if_fail(policy != NULL && path != NULL, FALSE);

	if (access == ESD_SANDBOX_ACCESS_DENY || !esd_direct_path_is_normal(path) ||
	    policy->profile != ESD_SANDBOX_PROFILE_MANAGED ||
	    policy->fs != ESD_SANDBOX_FS_RESTRICTED)
		return FALSE;
	if (esd_sandbox_path_has_prefix(path, "/proc") ||
	    esd_sandbox_path_has_prefix(path, "/dev") || esd_sandbox_path_has_prefix(path, "/sys"))
		return FALSE;
	for (guint i = 0; i < policy->rules->len; i++) {
		const EsdSandboxRule *rule = g_ptr_array_index(policy->rules, i);
		/* expanded by a scan of the host: left to the sandbox */
		if (rule->is_glob && rule->access == ESD_SANDBOX_ACCESS_DENY)
			return FALSE;
	}
	granted = esd_sandbox_policy_access_for(policy, path);
	if (granted == ESD_SANDBOX_ACCESS_DENY ||
	    (access == ESD_SANDBOX_ACCESS_WRITE && granted != ESD_SANDBOX_ACCESS_WRITE))
		return FALSE;
	if (!esd_sandbox_mounts_build(policy, &mounts, &error)) {
		g_debug("not direct: %s", error->message);
		return FALSE;
	}
	if (!esd_direct_read_plan(&mounts,
				  list,
				  owned,
				  policy,
				  access == ESD_SANDBOX_ACCESS_READ,
				  ro_files))
		return FALSE;
	for (guint i = 0; i < list->len; i++) {
		const EsdDirectMount *m = &g_array_index(list, EsdDirectMount, i);

		if (esd_sandbox_path_has_prefix(path, m->target)) {
			visible = m;
			continue;
		}
		/* below @path: what a listing, a walk or a removal would meet */
		if (tree && esd_sandbox_path_has_prefix(m->target, path) &&
		    (access == ESD_SANDBOX_ACCESS_WRITE || !m->identity))
			return FALSE;
	}
	if (visible == NULL || !visible->identity)
		return FALSE;
	if (access == ESD_SANDBOX_ACCESS_WRITE &&
	    (!visible->writable || g_strcmp0(visible->target, path) == 0))
		return FALSE;
	return TRUE;
}

/**
 * esd_sandbox_fd_above_std:
 * @fd: a descriptor bwrap is to inherit, taken over, or -1
 *
 * bwrap gets its descriptors at the numbers its arguments name, in a child
 * whose 0 to 6 are the supervisor's (esd-spawn.h): a descriptor made while
 * a lower number was free (another one just closed) moves up.
 *
 * Returns: @fd, or a close-on-exec copy at %ESD_SANDBOX_FIRST_FD or above
 *   (@fd then closed); -1 with errno set if it cannot be moved
 */
gint
esd_sandbox_fd_above_std(gint fd)
{
	gint moved;
	gint saved;

	if (fd < 0 || fd >= ESD_SANDBOX_FIRST_FD)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, ESD_SANDBOX_FIRST_FD);
	saved = errno;
	close(fd);
	errno = saved;
	return moved;
}
