/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>
#include <unistd.h>

#include "esd-stdio-listener.h"

/*
 * One connection over the daemon's own stdin and stdout, newline-delimited.
 * The protocol streams are moved to private descriptors and fd 0 and 1 are
 * pointed at /dev/null and stderr, so that nothing else in the process, and
 * no child, can read the client's input or write into the protocol stream.
 */
struct _EsdStdioListener {
	ErpcListener parent_instance;
	ErpcTransport *transport;
};

G_DEFINE_TYPE(EsdStdioListener, esd_stdio_listener, ERPC_TYPE_LISTENER)

static gint
esd_stdio_listener_take_fd(gint fd, gint replacement, GError **error)
{
	gint copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);

	if (copy < 0 || dup2(replacement, fd) < 0) {
		gint saved = errno;
		if (copy >= 0)
			close(copy);
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "cannot take over fd %d: %s",
			    fd,
			    g_strerror(saved));
		return -1;
	}
	if (!g_unix_set_fd_nonblocking(copy, TRUE, error)) {
		close(copy);
		return -1;
	}
	return copy;
}

static void
esd_stdio_listener_transport_closed_cb(ErpcTransport *transport,
				       const GError *error,
				       EsdStdioListener *self)
{
	erpc_listener_emit_finished(ERPC_LISTENER(self));
}

static gboolean
esd_stdio_listener_listen(ErpcListener *listener, const gchar *uri, GError **error)
{
	EsdStdioListener *self = ESD_STDIO_LISTENER(listener);
	g_autoptr(GInputStream) input = NULL;
	g_autoptr(GOutputStream) output = NULL;
	gint devnull;
	gint in_fd;
	gint out_fd;

	if (g_strcmp0(uri, "stdio") != 0 && g_strcmp0(uri, "stdio://") != 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "unsupported --listen URL %s; expected ws://IP:PORT or stdio",
			    uri);
		return FALSE;
	}
	if (self->transport != NULL) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_EXISTS,
				    "stdio can only be listened on once");
		return FALSE;
	}
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "cannot open /dev/null: %s",
			    g_strerror(errno));
		return FALSE;
	}
	in_fd = esd_stdio_listener_take_fd(STDIN_FILENO, devnull, error);
	close(devnull);
	if (in_fd < 0)
		return FALSE;
	out_fd = esd_stdio_listener_take_fd(STDOUT_FILENO, STDERR_FILENO, error);
	if (out_fd < 0) {
		close(in_fd);
		return FALSE;
	}
	input = g_unix_input_stream_new(in_fd, TRUE);
	output = g_unix_output_stream_new(out_fd, TRUE);

	erpc_listener_set_announce(listener, FALSE);
	erpc_listener_set_bound_uri(listener, "stdio");
	self->transport =
	    ERPC_TRANSPORT(erpc_line_transport_new(input,
						   output,
						   "stdio",
						   erpc_listener_get_max_message_size(listener)));
	g_signal_connect(self->transport,
			 "closed",
			 G_CALLBACK(esd_stdio_listener_transport_closed_cb),
			 self);
	erpc_listener_emit_transport(listener, self->transport);
	return TRUE;
}

static void
esd_stdio_listener_finalize(GObject *object)
{
	EsdStdioListener *self = ESD_STDIO_LISTENER(object);
	if (self->transport != NULL) {
		g_signal_handlers_disconnect_by_data(self->transport, self);
		g_object_unref(self->transport);
	}
	G_OBJECT_CLASS(esd_stdio_listener_parent_class)->finalize(object);
}

static void
esd_stdio_listener_init(EsdStdioListener *self)
{
}

static void
esd_stdio_listener_class_init(EsdStdioListenerClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = esd_stdio_listener_finalize;
	ERPC_LISTENER_CLASS(klass)->listen = esd_stdio_listener_listen;
}
