/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <stdlib.h>
#include <string.h>

/*
 * A D-Bus caller for test-dbus, small enough to run inside a bubblewrap
 * sandbox with only /usr: calls OpenConnection on the session bus, then sends
 * initialize on the socket it got. Prints "reply LINE" and exits 0, or prints
 * "error NAME: MESSAGE" and exits 3 when the call is refused.
 */

#define REQUEST "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\"}}\n"

int
main(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GDBusConnection) bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
	g_autoptr(GUnixFDList) fds = NULL;
	g_autoptr(GVariant) reply = NULL;
	g_autoptr(GOutputStream) out = NULL;
	g_autoptr(GInputStream) base = NULL;
	g_autoptr(GDataInputStream) in = NULL;
	g_autofree gchar *line = NULL;
	gint32 handle = -1;
	gint fd;

	if (bus == NULL) {
		g_printerr("cannot connect to the session bus: %s\n", error->message);
		return EXIT_FAILURE;
	}
	reply = g_dbus_connection_call_with_unix_fd_list_sync(
	    bus,
	    "dev.execserverd.ExecServer1",
	    "/dev/execserverd/ExecServer1",
	    "dev.execserverd.ExecServer1",
	    "OpenConnection",
	    g_variant_new_parsed("({'client-name': <'dbus-open-connection'>},)"),
	    G_VARIANT_TYPE("(h)"),
	    G_DBUS_CALL_FLAGS_NONE,
	    30000,
	    NULL,
	    &fds,
	    NULL,
	    &error);
	if (reply == NULL) {
		g_autofree gchar *name = g_dbus_error_get_remote_error(error);
		g_dbus_error_strip_remote_error(error);
		g_print("error %s: %s\n", name != NULL ? name : "(local)", error->message);
		return 3;
	}
	g_variant_get(reply, "(h)", &handle);
	fd = fds != NULL ? g_unix_fd_list_get(fds, handle, &error) : -1;
	if (fd < 0) {
		g_printerr("no descriptor in the reply\n");
		return EXIT_FAILURE;
	}
	out = g_unix_output_stream_new(fd, FALSE);
	base = g_unix_input_stream_new(fd, TRUE);
	in = g_data_input_stream_new(base);
	if (!g_output_stream_write_all(out, REQUEST, strlen(REQUEST), NULL, NULL, &error)) {
		g_printerr("cannot send initialize: %s\n", error->message);
		return EXIT_FAILURE;
	}
	line = g_data_input_stream_read_line(in, NULL, NULL, &error);
	if (line == NULL) {
		g_printerr("no reply to initialize: %s\n", error != NULL ? error->message : "EOF");
		return EXIT_FAILURE;
	}
	g_print("reply %s\n", line);
	return EXIT_SUCCESS;
}
