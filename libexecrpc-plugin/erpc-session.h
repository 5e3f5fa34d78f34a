/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc.h>
#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * ERPC_SESSION_ERROR:
 *
 * The error domain of requests a plugin sends to the client of a session.
 *
 * Since: 0.2
 */
#define ERPC_SESSION_ERROR (erpc_session_error_quark())

/**
 * ErpcSessionError:
 * @ERPC_SESSION_ERROR_DETACHED: the session had no connection when the
 *   request was to be sent
 * @ERPC_SESSION_ERROR_CLOSED: the connection went (or the session was
 *   resumed by another one) before the client answered
 * @ERPC_SESSION_ERROR_TIMED_OUT: the client did not answer in time
 * @ERPC_SESSION_ERROR_REMOTE: the client answered with an error; the message
 *   holds its code and message
 *
 * Cancellation is reported as %G_IO_ERROR_CANCELLED.
 *
 * Since: 0.2
 */
typedef enum {
	ERPC_SESSION_ERROR_DETACHED,
	ERPC_SESSION_ERROR_CLOSED,
	ERPC_SESSION_ERROR_TIMED_OUT,
	ERPC_SESSION_ERROR_REMOTE,
} ErpcSessionError;

GQuark
erpc_session_error_quark(void);

/**
 * ErpcSession:
 *
 * A client's session: created by `initialize`, detached when its connection
 * goes, resumed by a later `initialize` with `resumeSessionId`. The daemon
 * owns sessions (its own type derives from this one); a plugin reaches the
 * session of a request with erpc_call_get_session() and the session of a
 * process being launched with erpc_launch_get_session(), and may keep a
 * reference to talk to the client later.
 *
 * Requests to the client (erpc_session_request_async()) carry integer ids
 * from a counter of the session that starts at 1, as the reference server's
 * `network/policyRequest`. They cannot collide with the client's own ids:
 * the client's requests and its answers to ours are told apart by their
 * shape, and our counter is never reset while the session lives. An answer
 * whose id this session issued but no longer waits for (it timed out or was
 * cancelled) is dropped; an answer with an id the session never issued
 * closes the connection, as it does on the reference server.
 *
 * The rules while detached: a request needs a connection; one sent while
 * detached fails at once with %ERPC_SESSION_ERROR_DETACHED, and those in
 * flight fail with %ERPC_SESSION_ERROR_CLOSED when the connection goes; none
 * is sent again after a resume. Notifications (erpc_session_notify()) made
 * while detached are dropped, like the process events of the session: the
 * protocol replays nothing on resume.
 *
 * Since: 0.2
 */
#define ERPC_TYPE_SESSION (erpc_session_get_type())
G_DECLARE_DERIVABLE_TYPE(ErpcSession, erpc_session, ERPC, SESSION, GObject)

/**
 * ErpcSessionClass:
 *
 * The daemon's session type derives from this class; plugins only use
 * sessions.
 *
 * Since: 0.2
 */
struct _ErpcSessionClass {
	GObjectClass parent_class;
	/*< private >*/
	gpointer padding[8];
};

const gchar *
erpc_session_get_id(ErpcSession *self);
gboolean
erpc_session_is_attached(ErpcSession *self);
void
erpc_session_request_async(ErpcSession *self,
			   const gchar *method,
			   JsonNode *params,
			   guint timeout_ms,
			   GCancellable *cancellable,
			   GAsyncReadyCallback callback,
			   gpointer user_data);
JsonNode *
erpc_session_request_finish(ErpcSession *self, GAsyncResult *result, GError **error);
gboolean
erpc_session_notify(ErpcSession *self, const gchar *method, JsonNode *params);

G_END_DECLS
