/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "esd-process.h"
#include "esd-session.h"
#include "esd-telemetry.h"

/*
 * One command and everything it started. Every event of the process takes
 * the next number of one counter: output chunks, the exit, the close. Events
 * are numbered and sent from the main thread in that order, so the wire
 * order is the seq order; an exit is only announced after the output
 * already in the pipes has been read, and `process/closed` is always last.
 *
 * Retained output is bounded (oldest chunks go first). While the peer does
 * not read what it is sent, the pipes are not drained: the command blocks
 * on a full pipe instead of the daemon's memory growing.
 */

#define ESD_PROCESS_READ_SIZE (1024 * 1024)
#define ESD_PROCESS_PIPE_SIZE (1024 * 1024)
/* a stream that just gave this much is hot: the next read waits a moment */
#define ESD_PROCESS_HOT_BYTES	  (16 * 1024)
#define ESD_PROCESS_HOT_US	  2000
#define ESD_PROCESS_MAX_CHUNKS	  50000
#define ESD_PROCESS_MAX_WRITE_IDS 4096
#define ESD_PROCESS_MAX_STDIN	  (16 * 1024 * 1024)
#define ESD_PROCESS_PAUSE_MS	  10

typedef enum {
	ESD_STREAM_STDOUT,
	ESD_STREAM_STDERR,
	ESD_STREAM_PTY,
} EsdStream;

static const gchar *const esd_stream_names[] = {"stdout", "stderr", "pty"};

typedef struct {
	guint64 seq;
	EsdStream stream;
	GBytes *data;
} EsdChunk;

typedef struct {
	EsdProcess *process; /* borrowed */
	EsdStream stream;
	gint fd;
	GSource *source;
	GSource *coalesce;
	gint64 hot_until;
	gboolean eof;
} EsdReader;

typedef struct {
	EsdProcess *process; /* borrowed */
	ErpcCall *call;
	guint64 after_seq;
	gboolean has_max_bytes;
	guint64 max_bytes;
	GSource *timeout;
	gulong cancel_id;
} EsdWaiter;

typedef enum {
	ESD_PROCESS_STATE_NEW,
	ESD_PROCESS_STATE_STARTING,
	ESD_PROCESS_STATE_RUNNING,
	ESD_PROCESS_STATE_FAILED,
} EsdProcessState;

struct _EsdProcess {
	GObject parent_instance;
	gchar *id;
	EsdProcessState state;
	gboolean tty;
	gboolean has_stdin;
	GPid pid;
	gboolean pid_namespace;
	gboolean reaped;
	guint child_watch;

	EsdReader readers[2];
	guint n_readers;
	gboolean paused;
	GSource *pause_source;

	gint report_fd;
	GSource *report_source;
	guint8 report_buf[8];
	gsize report_len;

	gint stdin_fd;
	GSource *stdin_source;
	GQueue stdin_queue; /* of GBytes */
	gsize stdin_offset;
	gsize stdin_queued;
	gboolean stdin_closed;

	GHashTable *write_ids;
	GQueue write_id_order;

	GQueue chunks; /* of EsdChunk, oldest first */
	gsize retained_bytes;
	gsize max_retained_bytes;
	guint64 next_seq;
	gboolean exited;
	gint exit_code;
	guint64 exit_seq;
	const gchar *failure_kind; /* static: the wire kind of a failed start */
	const gchar *sandbox_type; /* static: what process/start reports */
	EsdSession *session;	   /* not a reference: the session clears it as it lets go */
	gboolean closed;
	guint64 closed_seq;

	GPtrArray *waiters; /* of EsdWaiter */
	EsdProcessSinkFunc sink_func;
	gpointer sink_data;

	gboolean sandboxed;
	gboolean sandbox_denied;
	gpointer sandbox_data; /* released once the sandbox has exited */
	GDestroyNotify sandbox_release;

	/* attribution of the lifecycle records: process/start metadata */
	gchar *thread_id;
	gchar *tool_call_id;
	gboolean tty_record;
	gint64 started_us;
	guint network_records;
};

G_DEFINE_TYPE(EsdProcess, esd_process, G_TYPE_OBJECT)

enum { SIGNAL_STARTED, SIGNAL_EXITING, SIGNAL_EXITED, SIGNAL_CLOSED, SIGNAL_LAST };
static guint esd_process_signals[SIGNAL_LAST] = {0};

static void
esd_process_reader_start(EsdReader *reader);
static void
esd_process_wake_waiters(EsdProcess *self);
static void
esd_process_maybe_close(EsdProcess *self);

const gchar *
esd_process_get_id(EsdProcess *self)
{
	return self->id;
}

/* the session whose table holds @self, or %NULL once it has let go */
void
esd_process_set_session(EsdProcess *self, EsdSession *session)
{
	g_return_if_fail(ESD_IS_PROCESS(self));
	self->session = session;
}

EsdSession *
esd_process_get_session(EsdProcess *self)
{
	g_return_val_if_fail(ESD_IS_PROCESS(self), NULL);
	return self->session;
}

/* the supervisor of the command once spawned, 0 before */
GPid
esd_process_get_pid(EsdProcess *self)
{
	g_return_val_if_fail(ESD_IS_PROCESS(self), 0);
	return self->pid;
}

/* why the start failed, as the error's data.kind: "spawnNotFound", ...; %NULL before */
const gchar *
esd_process_get_failure_kind(EsdProcess *self)
{
	g_return_val_if_fail(ESD_IS_PROCESS(self), NULL);
	return self->failure_kind;
}

/* @sandbox_type: a static string, the `sandboxType` of the process/start result */
void
esd_process_set_sandbox_type(EsdProcess *self, const gchar *sandbox_type)
{
	g_return_if_fail(ESD_IS_PROCESS(self));
	self->sandbox_type = sandbox_type;
}

const gchar *
esd_process_get_sandbox_type(EsdProcess *self)
{
	g_return_val_if_fail(ESD_IS_PROCESS(self), NULL);
	return self->sandbox_type;
}

gboolean
esd_process_is_starting(EsdProcess *self)
{
	return self->state == ESD_PROCESS_STATE_STARTING;
}

gboolean
esd_process_is_closed(EsdProcess *self)
{
	return self->closed;
}

void
esd_process_set_sink(EsdProcess *self, EsdProcessSinkFunc func, gpointer user_data)
{
	self->sink_func = func;
	self->sink_data = user_data;
}

static ErpcConnection *
esd_process_sink(EsdProcess *self)
{
	if (self->sink_func == NULL)
		return NULL;
	return self->sink_func(self->sink_data);
}

static void
esd_process_notify(EsdProcess *self, GString *message)
{
	ErpcConnection *connection = esd_process_sink(self);
	g_autoptr(GBytes) bytes = NULL;

	/* detached: the event is in the retained state, process/read finds it */
	if (connection == NULL) {
		g_string_free(message, TRUE);
		return;
	}
	bytes = g_bytes_new_take(message->str, message->len);
	g_string_free(message, FALSE);
	erpc_connection_send(connection, bytes);
}

/* `{"method":METHOD,"params":{"processId":ID`: the caller writes the rest and closes both */
static GString *
esd_process_notification_start(EsdProcess *self,
			       const gchar *method,
			       gsize hint,
			       ErpcJsonWriter *writer)
{
	GString *out = g_string_sized_new(96 + hint);

	erpc_json_writer_init(writer, out);
	erpc_json_writer_begin_object(writer);
	erpc_json_writer_member_string(writer, "method", method);
	erpc_json_writer_member(writer, "params");
	erpc_json_writer_begin_object(writer);
	erpc_json_writer_member_string(writer, "processId", self->id);
	return out;
}

static void
esd_process_notification_end(ErpcJsonWriter *writer)
{
	erpc_json_writer_end_object(writer);
	erpc_json_writer_end_object(writer);
}

/* old output goes first, so that the newest stays readable */
static void
esd_process_retain(EsdProcess *self, EsdChunk *chunk)
{
	g_queue_push_tail(&self->chunks, chunk);
	self->retained_bytes += g_bytes_get_size(chunk->data);
	while (self->chunks.length > 1 && (self->retained_bytes > self->max_retained_bytes ||
					   self->chunks.length > ESD_PROCESS_MAX_CHUNKS)) {
		EsdChunk *old = g_queue_pop_head(&self->chunks);
		self->retained_bytes -= g_bytes_get_size(old->data);
		g_bytes_unref(old->data);
		g_free(old);
	}
}

/* takes @data, a g_malloc()ed buffer of which @len bytes are used */
static void
esd_process_emit_output(EsdProcess *self, EsdStream stream, guint8 *data, gsize len)
{
	EsdChunk *chunk = g_new0(EsdChunk, 1);
	ErpcJsonWriter writer;
	GString *message;

	chunk->seq = self->next_seq++;
	chunk->stream = stream;
	chunk->data = g_bytes_new_take(g_realloc(data, len), len);
	data = (guint8 *)g_bytes_get_data(chunk->data, NULL);
	if (esd_process_sink(self) != NULL) {
		message = esd_process_notification_start(self,
							 "process/output",
							 len / 3 * 4 + 4,
							 &writer);
		erpc_json_writer_member_uint(&writer, "seq", chunk->seq);
		erpc_json_writer_member_string(&writer, "stream", esd_stream_names[stream]);
		erpc_json_writer_member(&writer, "chunk");
		erpc_json_writer_base64(&writer, data, len);
		esd_process_notification_end(&writer);
		esd_process_notify(self, message);
	}
	esd_process_retain(self, chunk);
	esd_process_wake_waiters(self);
}

/* exit status as the protocol reports it: the code, or 128 + the signal */
static gint
esd_process_exit_code_from_status(gint status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

static void
esd_process_reader_stop(EsdReader *reader)
{
	if (reader->source != NULL) {
		g_source_destroy(reader->source);
		g_clear_pointer(&reader->source, g_source_unref);
	}
}

static void
esd_process_reader_stop_all(EsdReader *reader)
{
	esd_process_reader_stop(reader);
	if (reader->coalesce != NULL) {
		g_source_destroy(reader->coalesce);
		g_clear_pointer(&reader->coalesce, g_source_unref);
	}
}

static void
esd_process_reader_eof(EsdReader *reader)
{
	reader->eof = TRUE;
	esd_process_reader_stop_all(reader);
	if (reader->fd >= 0) {
		close(reader->fd);
		reader->fd = -1;
	}
}

/* reads once; returns FALSE when nothing more can be read now */
static gboolean
esd_process_reader_read_once_n(EsdReader *reader, gssize *got);

static gboolean
esd_process_reader_read_once(EsdReader *reader)
{
	gssize got = 0;
	return esd_process_reader_read_once_n(reader, &got);
}

static gboolean
esd_process_reader_read_once_n(EsdReader *reader, gssize *got)
{
	g_autofree guint8 *buf = NULL;
	ssize_t n;

	if (reader->eof)
		return FALSE;
	/* read straight into the buffer that is retained: no copy */
	buf = g_malloc(ESD_PROCESS_READ_SIZE);
	do
		n = read(reader->fd, buf, ESD_PROCESS_READ_SIZE);
	while (n < 0 && errno == EINTR);
	*got = n;
	if (n > 0) {
		esd_process_emit_output(reader->process,
					reader->stream,
					g_steal_pointer(&buf),
					(gsize)n);
		return TRUE;
	}
	if (n < 0 && errno == EAGAIN)
		return FALSE;
	/* 0, or EIO from a pty whose last slave closed */
	esd_process_reader_eof(reader);
	esd_process_maybe_close(reader->process);
	return FALSE;
}

static gboolean
esd_process_is_congested(EsdProcess *self)
{
	ErpcConnection *connection = esd_process_sink(self);
	if (connection == NULL)
		return FALSE;
	return erpc_transport_is_congested(erpc_connection_get_transport(connection));
}

static gboolean
esd_process_resume_cb(gpointer user_data)
{
	EsdProcess *self = ESD_PROCESS(user_data);

	if (esd_process_is_congested(self))
		return G_SOURCE_CONTINUE;
	g_clear_pointer(&self->pause_source, g_source_unref);
	self->paused = FALSE;
	for (guint i = 0; i < self->n_readers; i++)
		esd_process_reader_start(&self->readers[i]);
	return G_SOURCE_REMOVE;
}

/* stop draining the pipes until the peer has caught up */
static void
esd_process_pause(EsdProcess *self)
{
	if (self->paused)
		return;
	self->paused = TRUE;
	for (guint i = 0; i < self->n_readers; i++)
		esd_process_reader_stop(&self->readers[i]);
	self->pause_source = g_timeout_source_new(ESD_PROCESS_PAUSE_MS);
	g_source_set_callback(self->pause_source, esd_process_resume_cb, self, NULL);
	g_source_attach(self->pause_source, NULL);
}

static gboolean
esd_process_coalesce_cb(gpointer user_data)
{
	EsdReader *reader = user_data;
	g_clear_pointer(&reader->coalesce, g_source_unref);
	esd_process_reader_start(reader);
	return G_SOURCE_REMOVE;
}

static gboolean
esd_process_readable_cb(gint fd, GIOCondition condition, gpointer user_data)
{
	EsdReader *reader = user_data;
	EsdProcess *self = reader->process;
	gint64 now = g_get_monotonic_time();
	gssize got = 0;

	if (esd_process_is_congested(self)) {
		esd_process_pause(self);
		return G_SOURCE_REMOVE;
	}
	/*
	 * a writer that keeps the pipe busy is read a millisecond later: the
	 * pipe fills meanwhile, and fewer, larger chunks cost less per byte;
	 * occasional output (a prompt, an echo) is read at once
	 */
	if (reader->hot_until > now && reader->coalesce == NULL) {
		reader->hot_until = 0;
		esd_process_reader_stop(reader);
		reader->coalesce = g_timeout_source_new(1);
		g_source_set_callback(reader->coalesce, esd_process_coalesce_cb, reader, NULL);
		g_source_attach(reader->coalesce, NULL);
		return G_SOURCE_REMOVE;
	}
	g_object_ref(self);
	esd_process_reader_read_once_n(reader, &got);
	/* a full read means a backlog: read again at once */
	reader->hot_until = got >= ESD_PROCESS_HOT_BYTES && got < ESD_PROCESS_READ_SIZE
				? now + ESD_PROCESS_HOT_US
				: 0;
	g_object_unref(self);
	return reader->source != NULL ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static void
esd_process_reader_start(EsdReader *reader)
{
	if (reader->eof || reader->source != NULL || reader->coalesce != NULL ||
	    reader->process->paused)
		return;
	reader->source = g_unix_fd_source_new(reader->fd, G_IO_IN | G_IO_HUP | G_IO_ERR);
	g_source_set_callback(reader->source, G_SOURCE_FUNC(esd_process_readable_cb), reader, NULL);
	g_source_attach(reader->source, NULL);
}

static void
esd_process_maybe_close(EsdProcess *self)
{
	ErpcJsonWriter writer;
	GString *message;

	if (self->closed || !self->exited)
		return;
	for (guint i = 0; i < self->n_readers; i++) {
		if (!self->readers[i].eof)
			return;
	}
	self->closed = TRUE;
	self->closed_seq = self->next_seq++;
	message = esd_process_notification_start(self, "process/closed", 0, &writer);
	erpc_json_writer_member_uint(&writer, "seq", self->closed_seq);
	esd_process_notification_end(&writer);
	esd_process_notify(self, message);
	esd_process_wake_waiters(self);
	g_signal_emit(self, esd_process_signals[SIGNAL_CLOSED], 0);
}

/*
 * The reference's heuristic for sandboxDenied: a sandboxed command failed
 * and its output names a refusal the sandbox would cause.
 */
static gboolean
esd_process_output_looks_denied(EsdProcess *self)
{
	const gchar *const words[] = {"permission denied",
				      "operation not permitted",
				      "read-only file system",
				      "seccomp",
				      "sandbox",
				      "bad system call",
				      NULL};

	for (GList *l = self->chunks.head; l != NULL; l = l->next) {
		EsdChunk *chunk = l->data;
		gsize len = 0;
		const gchar *data = g_bytes_get_data(chunk->data, &len);
		g_autofree gchar *lower = g_ascii_strdown(data != NULL ? data : "", (gssize)len);
		for (guint i = 0; words[i] != NULL; i++) {
			if (g_strstr_len(lower, (gssize)len, words[i]) != NULL)
				return TRUE;
		}
	}
	return FALSE;
}

static void
esd_process_release_sandbox(EsdProcess *self)
{
	gpointer data = g_steal_pointer(&self->sandbox_data);
	if (data != NULL && self->sandbox_release != NULL)
		self->sandbox_release(data);
}

/**
 * esd_process_set_sandbox:
 * @data: (transfer full) (nullable): what the sandbox needs until it exits
 * @release: frees @data once the command has exited (or the process goes)
 *
 * Marks the process as sandboxed: its exit reports `sandboxDenied` when
 * the output suggests the sandbox refused something.
 */
void
esd_process_set_sandbox(EsdProcess *self, gpointer data, GDestroyNotify release)
{
	g_return_if_fail(ESD_IS_PROCESS(self));
	self->sandboxed = TRUE;
	self->sandbox_data = data;
	self->sandbox_release = release;
}

/**
 * esd_process_set_attribution:
 * @thread_id: (nullable): the client's thread
 * @tool_call_id: (nullable): the client's tool call
 *
 * What the lifecycle records of the process name besides its session.
 */
void
esd_process_set_attribution(EsdProcess *self,
			    const gchar *thread_id,
			    const gchar *tool_call_id,
			    gboolean tty)
{
	g_return_if_fail(ESD_IS_PROCESS(self));
	g_free(self->thread_id);
	self->thread_id = g_strdup(thread_id);
	g_free(self->tool_call_id);
	self->tool_call_id = g_strdup(tool_call_id);
	self->tty_record = tty;
}

/**
 * esd_process_get_telemetry_subject:
 * @subject: (out caller-allocates): valid while the process and its session live
 */
void
esd_process_get_telemetry_subject(EsdProcess *self, EsdTelemetrySubject *subject)
{
	g_return_if_fail(ESD_IS_PROCESS(self));
	subject->session_id = self->session != NULL ? esd_session_get_id(self->session) : NULL;
	subject->process_id = self->id;
	subject->thread_id = self->thread_id;
	subject->tool_call_id = self->tool_call_id;
}

/* at most this many network records per process, then one that says so */
#define ESD_PROCESS_MAX_NETWORK_RECORDS 256

/**
 * esd_process_count_network_record:
 *
 * Returns: %TRUE while a network decision of the process may be recorded
 */
gboolean
esd_process_count_network_record(EsdProcess *self)
{
	g_return_val_if_fail(ESD_IS_PROCESS(self), FALSE);
	if (self->network_records > ESD_PROCESS_MAX_NETWORK_RECORDS)
		return FALSE;
	if (++self->network_records > ESD_PROCESS_MAX_NETWORK_RECORDS) {
		g_log(ESD_TELEMETRY_LOG_DOMAIN,
		      G_LOG_LEVEL_INFO,
		      "further network decisions of a process are not logged (limit %u)",
		      ESD_PROCESS_MAX_NETWORK_RECORDS);
		return FALSE;
	}
	return TRUE;
}

static void
esd_process_set_exited(EsdProcess *self, gint status)
{
	ErpcJsonWriter writer;
	GString *message;
	gint exit_code = esd_process_exit_code_from_status(status);
	EsdTelemetrySubject subject;

	if (self->exited)
		return;
	/* what the command wrote before it exited is sent before the exit */
	for (guint i = 0; i < self->n_readers; i++) {
		for (guint rounds = 0;
		     rounds < 16 && esd_process_reader_read_once(&self->readers[i]);
		     rounds++)
			;
	}
	self->exited = TRUE;
	self->exit_code = exit_code;
	self->exit_seq = self->next_seq++;
	self->sandbox_denied =
	    self->sandboxed && exit_code != 0 && esd_process_output_looks_denied(self);
	esd_process_release_sandbox(self);
	esd_process_get_telemetry_subject(self, &subject);
	esd_telemetry_process_exited(&subject,
				     exit_code,
				     WIFSIGNALED(status) ? WTERMSIG(status) : 0,
				     (g_get_monotonic_time() - self->started_us) / 1000,
				     self->sandbox_denied);
	if (self->sandbox_denied)
		esd_telemetry_sandbox_denied(&subject, "exit");
	/* what the launch's hooks held back about the command goes before its exit */
	g_signal_emit(self, esd_process_signals[SIGNAL_EXITING], 0);
	message = esd_process_notification_start(self, "process/exited", 0, &writer);
	erpc_json_writer_member_uint(&writer, "seq", self->exit_seq);
	erpc_json_writer_member_int(&writer, "exitCode", exit_code);
	erpc_json_writer_member_boolean(&writer, "sandboxDenied", self->sandbox_denied);
	esd_process_notification_end(&writer);
	esd_process_notify(self, message);
	esd_process_wake_waiters(self);
	if (!self->tty)
		self->stdin_closed = TRUE;
	g_signal_emit(self, esd_process_signals[SIGNAL_EXITED], 0, exit_code);
	esd_process_maybe_close(self);
}

static void
esd_process_start_failed(EsdProcess *self, gint kind_errno, EsdSpawnReport type)
{
	g_autoptr(GError) error = NULL;

	self->state = ESD_PROCESS_STATE_FAILED;
	g_set_error(&error,
		    ERPC_ERROR,
		    ERPC_ERROR_INTERNAL,
		    "%s (os error %d)",
		    g_strerror(kind_errno),
		    kind_errno);
	self->failure_kind =
	    kind_errno == ENOENT ? "spawnNotFound"
	    : (kind_errno == EACCES || kind_errno == EPERM) && type != ESD_SPAWN_REPORT_SETUP_FAILED
		? "spawnPermissionDenied"
		: "spawnFailed";
	{
		EsdTelemetrySubject subject;
		esd_process_get_telemetry_subject(self, &subject);
		esd_telemetry_spawn_failed(&subject, self->failure_kind, kind_errno);
	}
	g_signal_emit(self, esd_process_signals[SIGNAL_STARTED], 0, error);
	esd_spawn_refill_spare();
}

static void
esd_process_started(EsdProcess *self)
{
	EsdTelemetrySubject subject;

	self->state = ESD_PROCESS_STATE_RUNNING;
	self->started_us = g_get_monotonic_time();
	esd_process_get_telemetry_subject(self, &subject);
	esd_telemetry_process_started(&subject, self->sandboxed, self->tty_record);
	g_signal_emit(self, esd_process_signals[SIGNAL_STARTED], 0, NULL);
	/* after the answer: the next spare is forked while the command runs */
	esd_spawn_refill_spare();
	/* output is read once the start was answered */
	for (guint i = 0; i < self->n_readers; i++)
		esd_process_reader_start(&self->readers[i]);
}

static gboolean
esd_process_report_cb(gint fd, GIOCondition condition, gpointer user_data)
{
	EsdProcess *self = ESD_PROCESS(user_data);
	ssize_t n;

	g_object_ref(self);
	do
		n = read(self->report_fd,
			 self->report_buf + self->report_len,
			 8 - self->report_len);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN) {
		g_object_unref(self);
		return G_SOURCE_CONTINUE;
	}
	if (n <= 0) {
		/* the supervisor is gone; the child watch tells how */
		close(self->report_fd);
		self->report_fd = -1;
		/* also called directly, from the child watch: detach it here */
		if (self->report_source != NULL) {
			g_source_destroy(self->report_source);
			g_clear_pointer(&self->report_source, g_source_unref);
		}
		g_object_unref(self);
		return G_SOURCE_REMOVE;
	}
	self->report_len += (gsize)n;
	if (self->report_len == 8) {
		gint32 type;
		gint32 value;
		memcpy(&type, self->report_buf, 4);
		memcpy(&value, self->report_buf + 4, 4);
		self->report_len = 0;
		if (type == ESD_SPAWN_REPORT_STARTED && self->state == ESD_PROCESS_STATE_STARTING)
			esd_process_started(self);
		else if (type == ESD_SPAWN_REPORT_EXITED &&
			 self->state == ESD_PROCESS_STATE_RUNNING)
			esd_process_set_exited(self, value);
		else if (self->state == ESD_PROCESS_STATE_STARTING)
			esd_process_start_failed(self, value, type);
	}
	g_object_unref(self);
	return G_SOURCE_CONTINUE;
}

/* supervisors not yet reaped, whichever session they belonged to; main thread only */
static guint esd_process_n_running = 0;

/* for idle exit: commands of ended sessions count until their supervisor is reaped */
guint
esd_process_get_n_running(void)
{
	return esd_process_n_running;
}

static void
esd_process_child_watch_cb(GPid pid, gint status, gpointer user_data)
{
	EsdProcess *self = ESD_PROCESS(user_data);

	esd_process_n_running--;
	self->reaped = TRUE;
	self->child_watch = 0;
	g_spawn_close_pid(pid);
	/* records still in the pipe come first */
	for (guint i = 0; i < 64 && self->report_fd >= 0; i++)
		esd_process_report_cb(self->report_fd, G_IO_IN, self);
	if (self->state == ESD_PROCESS_STATE_STARTING)
		esd_process_start_failed(self, ECHILD, ESD_SPAWN_REPORT_SETUP_FAILED);
	else if (self->state == ESD_PROCESS_STATE_RUNNING)
		esd_process_set_exited(self, status);
	g_object_unref(self);
}

gboolean
esd_process_spawn(EsdProcess *self, const EsdSpawnRequest *request, GError **error)
{
	EsdSpawnResult result = {0};

	g_return_val_if_fail(self->state == ESD_PROCESS_STATE_NEW, FALSE);
	if (!esd_spawn(request, &result, error))
		return FALSE;
	self->state = ESD_PROCESS_STATE_STARTING;
	self->pid = result.pid;
	self->pid_namespace = result.pid_namespace;
	self->tty = request->tty;
	self->has_stdin = request->tty || request->pipe_stdin;
	self->stdin_fd = result.stdin_fd;
	self->report_fd = result.report_fd;
	if (self->stdin_fd >= 0)
		g_unix_set_fd_nonblocking(self->stdin_fd, TRUE, NULL);
	g_unix_set_fd_nonblocking(self->report_fd, TRUE, NULL);
	self->readers[0].process = self;
	self->readers[0].stream = request->tty ? ESD_STREAM_PTY : ESD_STREAM_STDOUT;
	self->readers[0].fd = result.stdout_fd;
	self->n_readers = 1;
	if (!request->tty) {
		self->readers[1].process = self;
		self->readers[1].stream = ESD_STREAM_STDERR;
		self->readers[1].fd = result.stderr_fd;
		self->n_readers = 2;
	}
	for (guint i = 0; i < self->n_readers; i++) {
		g_unix_set_fd_nonblocking(self->readers[i].fd, TRUE, NULL);
		/* fewer, larger chunks for fast writers */
		if (!request->tty)
			fcntl(self->readers[i].fd, F_SETPIPE_SZ, ESD_PROCESS_PIPE_SIZE);
	}
	self->report_source = g_unix_fd_source_new(self->report_fd, G_IO_IN | G_IO_HUP | G_IO_ERR);
	g_source_set_callback(self->report_source,
			      G_SOURCE_FUNC(esd_process_report_cb),
			      self,
			      NULL);
	g_source_attach(self->report_source, NULL);
	/* the watch keeps the object until the supervisor is reaped */
	self->child_watch =
	    g_child_watch_add(self->pid, esd_process_child_watch_cb, g_object_ref(self));
	/* with other commands about, the next one may come before this one is executed */
	if (esd_process_n_running > 0)
		esd_spawn_refill_spare();
	esd_process_n_running++;
	return TRUE;
}

/* --- process/read ------------------------------------------------------ */

static gboolean
esd_process_waiter_ready(EsdProcess *self, EsdWaiter *waiter)
{
	EsdChunk *last = g_queue_peek_tail(&self->chunks);

	if (self->closed)
		return TRUE;
	if (last != NULL && last->seq > waiter->after_seq)
		return TRUE;
	return self->exited && self->exit_seq > waiter->after_seq;
}

static void
esd_process_answer_read(EsdProcess *self,
			ErpcCall *call,
			guint64 after_seq,
			gboolean has_max_bytes,
			guint64 max_bytes)
{
	g_autoptr(GString) out = g_string_sized_new(256);
	ErpcJsonWriter writer;
	guint64 total = 0;
	guint64 last_seq = 0;
	gboolean first = TRUE;
	guint64 next_seq;

	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member(&writer, "chunks");
	erpc_json_writer_begin_array(&writer);
	for (GList *l = self->chunks.head; l != NULL; l = l->next) {
		EsdChunk *chunk = l->data;
		gsize len = 0;
		const guint8 *data;

		if (chunk->seq <= after_seq)
			continue;
		data = g_bytes_get_data(chunk->data, &len);
		/* at least one chunk, never split */
		if (has_max_bytes && !first && total + len > max_bytes)
			break;
		erpc_json_writer_begin_object(&writer);
		erpc_json_writer_member_uint(&writer, "seq", chunk->seq);
		erpc_json_writer_member_string(&writer, "stream", esd_stream_names[chunk->stream]);
		erpc_json_writer_member(&writer, "chunk");
		erpc_json_writer_base64(&writer, data, len);
		erpc_json_writer_end_object(&writer);
		total += len;
		last_seq = chunk->seq;
		first = FALSE;
		if (has_max_bytes && total >= max_bytes)
			break;
	}
	next_seq = has_max_bytes && last_seq > 0 ? last_seq + 1 : self->next_seq;
	erpc_json_writer_end_array(&writer);
	erpc_json_writer_member_uint(&writer, "nextSeq", next_seq);
	erpc_json_writer_member_boolean(&writer, "exited", self->exited);
	erpc_json_writer_member(&writer, "exitCode");
	if (self->exited)
		erpc_json_writer_int(&writer, self->exit_code);
	else
		erpc_json_writer_null(&writer);
	erpc_json_writer_member_boolean(&writer, "closed", self->closed);
	erpc_json_writer_member(&writer, "failure");
	erpc_json_writer_null(&writer);
	erpc_json_writer_member_boolean(&writer, "sandboxDenied", self->sandbox_denied);
	erpc_json_writer_end_object(&writer);
	erpc_call_return_raw(call, out->str);
}

static void
esd_process_waiter_free(EsdWaiter *waiter)
{
	if (waiter->timeout != NULL) {
		g_source_destroy(waiter->timeout);
		g_source_unref(waiter->timeout);
	}
	if (waiter->cancel_id != 0)
		g_cancellable_disconnect(erpc_call_get_cancellable(waiter->call),
					 waiter->cancel_id);
	g_object_unref(waiter->call);
	g_free(waiter);
}

static void
esd_process_waiter_finish(EsdWaiter *waiter)
{
	EsdProcess *self = waiter->process;

	g_ptr_array_remove_fast(self->waiters, waiter);
	if (!erpc_call_is_finished(waiter->call))
		esd_process_answer_read(self,
					waiter->call,
					waiter->after_seq,
					waiter->has_max_bytes,
					waiter->max_bytes);
	esd_process_waiter_free(waiter);
}

static void
esd_process_wake_waiters(EsdProcess *self)
{
	for (guint i = self->waiters->len; i > 0; i--) {
		EsdWaiter *waiter = g_ptr_array_index(self->waiters, i - 1);
		if (esd_process_waiter_ready(self, waiter))
			esd_process_waiter_finish(waiter);
	}
}

static gboolean
esd_process_waiter_timeout_cb(gpointer user_data)
{
	EsdWaiter *waiter = user_data;
	g_clear_pointer(&waiter->timeout, g_source_unref);
	esd_process_waiter_finish(waiter);
	return G_SOURCE_REMOVE;
}

static gboolean
esd_process_waiter_cancelled_idle_cb(gpointer user_data)
{
	EsdWaiter *waiter = user_data;
	esd_process_waiter_finish(waiter);
	return G_SOURCE_REMOVE;
}

static void
esd_process_waiter_cancelled_cb(GCancellable *cancellable, EsdWaiter *waiter)
{
	/* not from inside the cancellation: it may hold the cancellable's lock */
	if (waiter->timeout != NULL) {
		g_source_destroy(waiter->timeout);
		g_clear_pointer(&waiter->timeout, g_source_unref);
	}
	waiter->timeout = g_idle_source_new();
	g_source_set_callback(waiter->timeout, esd_process_waiter_cancelled_idle_cb, waiter, NULL);
	g_source_attach(waiter->timeout, NULL);
}

void
esd_process_read(EsdProcess *self,
		 ErpcCall *call,
		 guint64 after_seq,
		 gboolean has_max_bytes,
		 guint64 max_bytes,
		 guint64 wait_ms)
{
	EsdWaiter *waiter;

	waiter = g_new0(EsdWaiter, 1);
	waiter->process = self;
	waiter->call = g_object_ref(call);
	waiter->after_seq = after_seq;
	waiter->has_max_bytes = has_max_bytes;
	waiter->max_bytes = max_bytes;
	if (wait_ms == 0 || esd_process_waiter_ready(self, waiter)) {
		esd_process_answer_read(self, call, after_seq, has_max_bytes, max_bytes);
		esd_process_waiter_free(waiter);
		return;
	}
	waiter->timeout = g_timeout_source_new((guint)MIN(wait_ms, (guint64)G_MAXUINT));
	g_source_set_callback(waiter->timeout, esd_process_waiter_timeout_cb, waiter, NULL);
	g_source_attach(waiter->timeout, NULL);
	waiter->cancel_id = g_cancellable_connect(erpc_call_get_cancellable(call),
						  G_CALLBACK(esd_process_waiter_cancelled_cb),
						  waiter,
						  NULL);
	g_ptr_array_add(self->waiters, waiter);
}

/* --- process/write ----------------------------------------------------- */

static void
esd_process_stdin_flush(EsdProcess *self);

static gboolean
esd_process_stdin_writable_cb(gint fd, GIOCondition condition, gpointer user_data)
{
	EsdProcess *self = ESD_PROCESS(user_data);
	g_clear_pointer(&self->stdin_source, g_source_unref);
	esd_process_stdin_flush(self);
	return G_SOURCE_REMOVE;
}

static void
esd_process_stdin_drop(EsdProcess *self)
{
	g_queue_clear_full(&self->stdin_queue, (GDestroyNotify)g_bytes_unref);
	self->stdin_offset = 0;
	self->stdin_queued = 0;
}

static void
esd_process_stdin_flush(EsdProcess *self)
{
	while (!g_queue_is_empty(&self->stdin_queue)) {
		GBytes *head = g_queue_peek_head(&self->stdin_queue);
		gsize len = 0;
		const guint8 *data = g_bytes_get_data(head, &len);
		ssize_t n =
		    write(self->stdin_fd, data + self->stdin_offset, len - self->stdin_offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			self->stdin_source =
			    g_unix_fd_source_new(self->stdin_fd, G_IO_OUT | G_IO_ERR);
			g_source_set_callback(self->stdin_source,
					      G_SOURCE_FUNC(esd_process_stdin_writable_cb),
					      self,
					      NULL);
			g_source_attach(self->stdin_source, NULL);
			return;
		}
		if (n < 0) {
			/* EPIPE: the command closed its stdin; EIO: the pty is gone */
			esd_process_stdin_drop(self);
			if (!self->tty)
				self->stdin_closed = TRUE;
			return;
		}
		self->stdin_offset += (gsize)n;
		self->stdin_queued -= (gsize)n;
		if (self->stdin_offset == len) {
			g_bytes_unref(g_queue_pop_head(&self->stdin_queue));
			self->stdin_offset = 0;
		}
	}
}

static void
esd_process_remember_write_id(EsdProcess *self, const gchar *write_id)
{
	gchar *copy = g_strdup(write_id);
	g_hash_table_add(self->write_ids, copy);
	g_queue_push_tail(&self->write_id_order, copy);
	if (self->write_id_order.length > ESD_PROCESS_MAX_WRITE_IDS)
		g_hash_table_remove(self->write_ids, g_queue_pop_head(&self->write_id_order));
}

/* returns the protocol's write status */
const gchar *
esd_process_write(EsdProcess *self, const gchar *write_id, GBytes *data)
{
	if (self->state == ESD_PROCESS_STATE_STARTING)
		return "starting";
	/* a retry after a reconnect must not write twice, and gets the first answer even
	 * when stdin has closed since */
	if (g_hash_table_contains(self->write_ids, write_id))
		return "accepted";
	if (!self->has_stdin || (self->stdin_closed && !self->tty))
		return "stdinClosed";
	esd_process_remember_write_id(self, write_id);
	if (self->stdin_fd < 0 || g_bytes_get_size(data) == 0)
		return "accepted";
	if (self->stdin_queued + g_bytes_get_size(data) > ESD_PROCESS_MAX_STDIN) {
		g_debug("process %s: stdin backlog full, input dropped", self->id);
		return "accepted";
	}
	g_queue_push_tail(&self->stdin_queue, g_bytes_ref(data));
	self->stdin_queued += g_bytes_get_size(data);
	if (self->stdin_source == NULL)
		esd_process_stdin_flush(self);
	return "accepted";
}

/* --- signals ----------------------------------------------------------- */

void
esd_process_interrupt(EsdProcess *self)
{
	if (self->state != ESD_PROCESS_STATE_RUNNING || self->exited)
		return;
	if (self->tty && self->stdin_fd >= 0) {
		/* the terminal's foreground group, as a terminal's ^C would */
		pid_t pgrp = tcgetpgrp(self->stdin_fd);
		if (pgrp > 0 && kill(-pgrp, SIGINT) == 0)
			return;
	}
	esd_spawn_interrupt(self->pid);
}

/* kills the whole tree; TRUE when something was running */
gboolean
esd_process_terminate(EsdProcess *self)
{
	if (self->state == ESD_PROCESS_STATE_NEW || self->state == ESD_PROCESS_STATE_FAILED)
		return FALSE;
	if (self->reaped)
		return FALSE;
	esd_spawn_kill_tree(self->pid, self->pid_namespace);
	return !self->exited;
}

static void
esd_process_chunk_free(EsdChunk *chunk)
{
	g_bytes_unref(chunk->data);
	g_free(chunk);
}

static void
esd_process_dispose(GObject *object)
{
	EsdProcess *self = ESD_PROCESS(object);

	/* nothing outlives the daemon's interest in it */
	if (!self->reaped && self->pid > 0)
		esd_spawn_kill_tree(self->pid, self->pid_namespace);
	esd_process_release_sandbox(self);
	while (self->waiters->len > 0)
		esd_process_waiter_finish(g_ptr_array_index(self->waiters, 0));
	G_OBJECT_CLASS(esd_process_parent_class)->dispose(object);
}

static void
esd_process_finalize(GObject *object)
{
	EsdProcess *self = ESD_PROCESS(object);

	g_free(self->thread_id);
	g_free(self->tool_call_id);
	for (guint i = 0; i < self->n_readers; i++) {
		esd_process_reader_stop_all(&self->readers[i]);
		if (self->readers[i].fd >= 0)
			close(self->readers[i].fd);
	}
	if (self->pause_source != NULL) {
		g_source_destroy(self->pause_source);
		g_source_unref(self->pause_source);
	}
	if (self->report_source != NULL) {
		g_source_destroy(self->report_source);
		g_source_unref(self->report_source);
	}
	if (self->report_fd >= 0)
		close(self->report_fd);
	if (self->stdin_source != NULL) {
		g_source_destroy(self->stdin_source);
		g_source_unref(self->stdin_source);
	}
	if (self->stdin_fd >= 0)
		close(self->stdin_fd);
	esd_process_stdin_drop(self);
	g_queue_clear_full(&self->chunks, (GDestroyNotify)esd_process_chunk_free);
	g_queue_clear(&self->write_id_order);
	g_hash_table_unref(self->write_ids);
	g_ptr_array_unref(self->waiters);
	g_free(self->id);
	G_OBJECT_CLASS(esd_process_parent_class)->finalize(object);
}

static void
esd_process_init(EsdProcess *self)
{
	self->next_seq = 1;
	self->sandbox_type = "none";
	self->report_fd = -1;
	self->stdin_fd = -1;
	self->readers[0].fd = self->readers[1].fd = -1;
	self->write_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	self->waiters = g_ptr_array_new();
	g_queue_init(&self->chunks);
	g_queue_init(&self->stdin_queue);
	g_queue_init(&self->write_id_order);
}

static void
esd_process_class_init(EsdProcessClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->dispose = esd_process_dispose;
	object_class->finalize = esd_process_finalize;

	esd_process_signals[SIGNAL_STARTED] = g_signal_new("started",
							   G_TYPE_FROM_CLASS(klass),
							   G_SIGNAL_RUN_LAST,
							   0,
							   NULL,
							   NULL,
							   NULL,
							   G_TYPE_NONE,
							   1,
							   G_TYPE_ERROR);
	esd_process_signals[SIGNAL_EXITING] = g_signal_new("exiting",
							   G_TYPE_FROM_CLASS(klass),
							   G_SIGNAL_RUN_LAST,
							   0,
							   NULL,
							   NULL,
							   NULL,
							   G_TYPE_NONE,
							   0);
	esd_process_signals[SIGNAL_EXITED] = g_signal_new("exited",
							  G_TYPE_FROM_CLASS(klass),
							  G_SIGNAL_RUN_LAST,
							  0,
							  NULL,
							  NULL,
							  NULL,
							  G_TYPE_NONE,
							  1,
							  G_TYPE_INT);
	esd_process_signals[SIGNAL_CLOSED] = g_signal_new("closed",
							  G_TYPE_FROM_CLASS(klass),
							  G_SIGNAL_RUN_LAST,
							  0,
							  NULL,
							  NULL,
							  NULL,
							  G_TYPE_NONE,
							  0);
}

EsdProcess *
esd_process_new(const gchar *id, gsize max_retained_bytes)
{
	EsdProcess *self = g_object_new(ESD_TYPE_PROCESS, NULL);
	self->id = g_strdup(id);
	self->max_retained_bytes = max_retained_bytes;
	return self;
}
