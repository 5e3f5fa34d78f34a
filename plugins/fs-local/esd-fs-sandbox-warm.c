/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "esd-fs-handoff.h"
#include "esd-fs-sandbox-exec.h"
#include "esd-fs-sandbox-warm.h"

/*
 * Warm helpers: sandboxed fs requests that cannot run in the daemon
 * (esd-fs-sandbox-direct.c) go to an esd-fs-helper started with --serve
 * in the sandbox of their policy, which answers one request per line and
 * stays. Each connection keeps its own (in EsdFsConnectionState), at most
 * --fs-sandbox-helpers of them, one per policy (keyed by the `sandbox`
 * member as received): started on first use, reused while idle, ended
 * after --fs-sandbox-helper-idle seconds without a request and with the
 * connection. A helper serves one request at a time; a request that finds
 * every helper of its connection busy runs in a helper of its own, as
 * before. The sandbox is set up when the helper starts: its view of the
 * host's mounts is the one of that moment.
 *
 * What a helper writes is not trusted (esd-fs-sandbox-answer.c): anything
 * after the answer's line, a handle nobody asked for, a crash or an
 * answer too large ends that helper, and the request fails with an
 * internal error; cancelling the request (its connection closed) kills the
 * helper. The next request starts another one.
 *
 * The pool is used on the main thread only; a helper's pipes by the
 * worker thread that runs its current request.
 */

#define ESD_FS_WARM_STDERR_MAX 4096

static guint esd_fs_warm_max = ESD_FS_WARM_MAX_DEFAULT;
static guint esd_fs_warm_idle = ESD_FS_WARM_IDLE_DEFAULT;

struct _EsdFsWarm {
	EsdFsWarmPool *pool; /* NULL once the pool is gone */
	gchar *key;
	ErpcSandboxChild *child; /* NULL until the first request starts it */
	gint in_fd;
	gint out_fd;
	gint err_fd;
	gint handoff_fd; /* the daemon's end */
	GString *stderr_text;
	guint idle_id;
	gboolean busy;
	gboolean dead; /* not to be used again */
};

struct _EsdFsWarmPool {
	GPtrArray *helpers; /* of EsdFsWarm, idle and busy */
};

/**
 * esd_fs_warm_set_limits:
 * @max_helpers: warm helpers per connection, at least 1
 * @idle_seconds: how long an idle one stays, at least 1
 */
void
esd_fs_warm_set_limits(guint max_helpers, guint idle_seconds)
{
	esd_fs_warm_max = MAX(max_helpers, 1);
	esd_fs_warm_idle = MAX(idle_seconds, 1);
}

static void
esd_fs_warm_close(gint *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

/* ends the helper: its stdin closed, then killed and reaped with the child */
static void
esd_fs_warm_free(EsdFsWarm *warm)
{
	g_clear_handle_id(&warm->idle_id, g_source_remove);
	esd_fs_warm_close(&warm->in_fd);
	esd_fs_warm_close(&warm->out_fd);
	esd_fs_warm_close(&warm->err_fd);
	esd_fs_warm_close(&warm->handoff_fd);
	if (warm->child != NULL)
		g_debug("ending a warm fs helper");
	g_clear_pointer(&warm->child, erpc_sandbox_child_unref);
	g_string_free(warm->stderr_text, TRUE);
	g_free(warm->key);
	g_free(warm);
}

EsdFsWarmPool *
esd_fs_warm_pool_new(void)
{
	EsdFsWarmPool *pool = g_new0(EsdFsWarmPool, 1);
	pool->helpers = g_ptr_array_new();
	return pool;
}

/* with the connection: idle helpers end now, busy ones when their request is done */
void
esd_fs_warm_pool_free(EsdFsWarmPool *pool)
{
	if (pool == NULL)
		return;
	for (guint i = 0; i < pool->helpers->len; i++) {
		EsdFsWarm *warm = g_ptr_array_index(pool->helpers, i);
		warm->pool = NULL;
		if (!warm->busy)
			esd_fs_warm_free(warm);
	}
	g_ptr_array_unref(pool->helpers);
	g_free(pool);
}

static void
esd_fs_warm_discard(EsdFsWarm *warm)
{
	if (warm->pool != NULL)
		g_ptr_array_remove(warm->pool->helpers, warm);
	esd_fs_warm_free(warm);
}

static gboolean
esd_fs_warm_idle_cb(gpointer data)
{
	EsdFsWarm *warm = data;

	warm->idle_id = 0;
	esd_fs_warm_discard(warm);
	return G_SOURCE_REMOVE;
}

/**
 * esd_fs_warm_pool_acquire:
 * @pool: the connection's helpers
 * @key: the policy, as received
 *
 * Returns: (transfer none) (nullable): an idle helper of @key, or a new
 *   one (started by its first esd_fs_warm_exchange()); %NULL when every
 *   helper of the connection is busy. Give it back with esd_fs_warm_release().
 */
EsdFsWarm *
esd_fs_warm_pool_acquire(EsdFsWarmPool *pool, const gchar *key)
{
	EsdFsWarm *idle_other = NULL;
	EsdFsWarm *warm;

	for (guint i = 0; i < pool->helpers->len; i++) {
		warm = g_ptr_array_index(pool->helpers, i);
		if (warm->busy)
			continue;
		if (g_strcmp0(warm->key, key) == 0) {
			g_clear_handle_id(&warm->idle_id, g_source_remove);
			warm->busy = TRUE;
			return warm;
		}
		idle_other = warm;
	}
	if (pool->helpers->len >= esd_fs_warm_max) {
		if (idle_other == NULL)
			return NULL;
		/* the bound holds: an idle helper of another policy makes room */
		esd_fs_warm_discard(idle_other);
	}
	warm = g_new0(EsdFsWarm, 1);
	warm->pool = pool;
	warm->key = g_strdup(key);
	warm->in_fd = warm->out_fd = warm->err_fd = warm->handoff_fd = -1;
	warm->stderr_text = g_string_new(NULL);
	warm->busy = TRUE;
	g_ptr_array_add(pool->helpers, warm);
	return warm;
}

/**
 * esd_fs_warm_release:
 * @warm: a helper of esd_fs_warm_pool_acquire(), its request done
 * @reusable: whether its answer was fine
 *
 * Keeps @warm for the next request of its policy, for a while, unless it
 * failed or its connection is gone.
 */
void
esd_fs_warm_release(EsdFsWarm *warm, gboolean reusable)
{
	warm->busy = FALSE;
	if (!reusable || warm->dead || warm->child == NULL || warm->pool == NULL) {
		esd_fs_warm_discard(warm);
		return;
	}
	warm->idle_id = g_timeout_add_seconds(esd_fs_warm_idle, esd_fs_warm_idle_cb, warm);
}

static gboolean
esd_fs_warm_start(EsdFsWarm *warm, ErpcSandbox *service, ErpcSandboxPolicy *policy, GError **error)
{
	gint pair[2] = {-1, -1};

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
		return esd_fs_set_errno(error, errno);
	warm->child = esd_fs_sandbox_spawn_server(service,
						  policy,
						  pair[1],
						  &warm->in_fd,
						  &warm->out_fd,
						  &warm->err_fd,
						  error);
	close(pair[1]);
	if (warm->child == NULL) {
		close(pair[0]);
		return FALSE;
	}
	warm->handoff_fd = pair[0];
	/* its masks are on the host while it runs: it ends with its first request */
	warm->dead = erpc_sandbox_child_has_host_mount_points(warm->child);
	g_debug("started a warm fs helper%s", warm->dead ? " for one request" : "");
	return TRUE;
}

/* the helper is gone or misbehaved: why, for the request */
static gboolean
esd_fs_warm_failed(EsdFsWarm *warm, const gchar *what, GError **error)
{
	gint status = -1;

	warm->dead = TRUE;
	esd_fs_warm_close(&warm->in_fd);
	esd_fs_warm_close(&warm->out_fd);
	esd_fs_warm_close(&warm->err_fd);
	/* also one that closed its stdout and went on: waiting must not hang */
	erpc_sandbox_child_kill(warm->child);
	if (what != NULL) {
		erpc_sandbox_child_wait(warm->child, NULL, &status, NULL);
		g_message("the warm sandboxed file system helper %s: %s",
			  what,
			  warm->stderr_text->str);
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "the sandboxed file system helper %s",
			    what);
		return FALSE;
	}
	if (!erpc_sandbox_child_wait(warm->child, NULL, &status, NULL))
		status = -1;
	esd_fs_sandbox_describe_failure(status, warm->stderr_text, error);
	return FALSE;
}

static void
esd_fs_warm_read_stderr(EsdFsWarm *warm)
{
	gchar buf[4096];

	for (;;) {
		gssize n = read(warm->err_fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			esd_fs_warm_close(&warm->err_fd);
		if (n <= 0)
			return;
		if (warm->stderr_text->len < ESD_FS_WARM_STDERR_MAX)
			g_string_append_len(
			    warm->stderr_text,
			    buf,
			    MIN(n, (gssize)(ESD_FS_WARM_STDERR_MAX - warm->stderr_text->len)));
	}
}

/**
 * esd_fs_warm_exchange:
 * @warm: a helper of esd_fs_warm_pool_acquire()
 * @service: the host's sandbox
 * @policy: the policy @warm is for
 * @request: (element-type GBytes): one request line
 * @answer: fed with the helper's answer line
 * @cancellable: kills the helper when cancelled
 * @error: return location for a #GError, or %NULL
 *
 * Starts @warm if it is not running, writes @request and reads the answer.
 * In a worker thread.
 *
 * Returns: %TRUE once the whole answer line was read
 */
gboolean
esd_fs_warm_exchange(EsdFsWarm *warm,
		     ErpcSandbox *service,
		     ErpcSandboxPolicy *policy,
		     GPtrArray *request,
		     EsdFsAnswer *answer,
		     GCancellable *cancellable,
		     GError **error)
{
	GPollFD cancel_fd = {-1, 0, 0};
	gboolean has_cancel;
	gboolean answered = FALSE;
	gboolean ok = TRUE;
	guint segment = 0;
	gsize offset = 0;

	if (warm->child != NULL) {
		struct pollfd stray = {warm->out_fd, POLLIN, 0};
		/* output (or an end) between requests: not a helper to trust, start another */
		if (poll(&stray, 1, 0) != 0) {
			g_message(
			    "the warm sandboxed file system helper wrote outside of an answer");
			esd_fs_warm_close(&warm->in_fd);
			esd_fs_warm_close(&warm->out_fd);
			esd_fs_warm_close(&warm->err_fd);
			esd_fs_warm_close(&warm->handoff_fd);
			g_clear_pointer(&warm->child, erpc_sandbox_child_unref);
		}
	}
	if (warm->child == NULL && !esd_fs_warm_start(warm, service, policy, error)) {
		warm->dead = TRUE;
		return FALSE;
	}
	g_string_truncate(warm->stderr_text, 0);
	has_cancel = g_cancellable_make_pollfd(cancellable, &cancel_fd);
	while (ok && !answered) {
		struct pollfd fds[4];
		nfds_t n = 0;
		gboolean writing = segment < request->len;
		gint err_index = -1;

		if (warm->out_fd < 0) {
			ok = esd_fs_warm_failed(warm, NULL, error);
			break;
		}
		fds[n++] = (struct pollfd){warm->out_fd, POLLIN, 0};
		if (writing)
			fds[n++] = (struct pollfd){warm->in_fd, POLLOUT, 0};
		if (warm->err_fd >= 0) {
			err_index = (gint)n;
			fds[n++] = (struct pollfd){warm->err_fd, POLLIN, 0};
		}
		if (has_cancel)
			fds[n++] = (struct pollfd){cancel_fd.fd, POLLIN, 0};
		if (poll(fds, n, -1) < 0 && errno != EINTR) {
			ok = esd_fs_warm_failed(warm, "could not be waited for", error);
			break;
		}
		if (g_cancellable_is_cancelled(cancellable)) {
			esd_fs_warm_failed(warm, "was stopped: the request was cancelled", NULL);
			g_clear_error(error);
			g_cancellable_set_error_if_cancelled(cancellable, error);
			ok = FALSE;
			break;
		}
		if (err_index >= 0 && fds[err_index].revents != 0)
			esd_fs_warm_read_stderr(warm);
		while (writing && segment < request->len) {
			GBytes *bytes = g_ptr_array_index(request, segment);
			gsize len = 0;
			const gchar *data = g_bytes_get_data(bytes, &len);
			gssize written;

			if (offset == len) {
				segment++;
				offset = 0;
				continue;
			}
			written = write(warm->in_fd, data + offset, len - offset);
			if (written < 0 && errno == EINTR)
				continue;
			if (written < 0 && errno == EAGAIN)
				break;
			if (written <= 0) {
				/* EPIPE: gone; what it wrote says why */
				segment = request->len;
				break;
			}
			offset += (gsize)written;
		}
		for (;;) {
			gchar buf[65536];
			gssize got = read(warm->out_fd, buf, sizeof(buf));
			const gchar *newline;

			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0 && errno == EAGAIN)
				break;
			if (got <= 0) {
				esd_fs_warm_read_stderr(warm);
				ok = esd_fs_warm_failed(warm, NULL, error);
				break;
			}
			newline = memchr(buf, '\n', (gsize)got);
			if (newline != NULL && newline + 1 != buf + got) {
				ok = esd_fs_warm_failed(warm, "wrote more than one answer", error);
				break;
			}
			if (!esd_fs_answer_feed(answer, buf, (gsize)got, error)) {
				esd_fs_warm_failed(warm, "wrote an answer that is too large", NULL);
				ok = FALSE;
				break;
			}
			if (newline != NULL) {
				answered = TRUE;
				break;
			}
		}
	}
	if (has_cancel)
		g_cancellable_release_fd(cancellable);
	if (ok && segment < request->len) {
		/* an answer before the whole request was read: not ours */
		return esd_fs_warm_failed(warm, "answered a request it did not read", error);
	}
	return ok;
}

/**
 * esd_fs_warm_receive_handle:
 * @warm: a helper that answered an fs/open with a result
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): the handle it sent, or %NULL (and the helper
 *   is not used again)
 */
EsdFsHandle *
esd_fs_warm_receive_handle(EsdFsWarm *warm, GError **error)
{
	EsdFsHandle *handle = esd_fs_handoff_receive(warm->handoff_fd, error);

	if (handle == NULL)
		warm->dead = TRUE;
	return handle;
}

/**
 * esd_fs_warm_finish:
 * @warm: a helper whose request is done, handle included
 *
 * A helper that sent a handle nobody asked for is not used again. In the
 * worker thread.
 */
void
esd_fs_warm_finish(EsdFsWarm *warm)
{
	struct pollfd extra = {warm->handoff_fd, POLLIN, 0};

	if (warm->handoff_fd >= 0 && poll(&extra, 1, 0) != 0) {
		g_message("the warm sandboxed file system helper sent a handle nobody asked for");
		warm->dead = TRUE;
	}
}
