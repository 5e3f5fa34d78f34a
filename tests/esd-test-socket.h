/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-test-utils.h"

G_BEGIN_DECLS

/*
 * Helpers for the daemon reached through a socket it was handed (fd:N,
 * systemd socket activation, D-Bus OpenConnection): a protocol peer over a
 * connected socket, the daemon started with a descriptor and its log in a
 * file, and the commands a test left running.
 */

/* EsdTestSocketPeer: newline-delimited JSON on a connected stream socket */
#define ESD_TYPE_TEST_SOCKET_PEER (esd_test_socket_peer_get_type())
G_DECLARE_FINAL_TYPE(EsdTestSocketPeer, esd_test_socket_peer, ESD, TEST_SOCKET_PEER, GObject)

EsdTestSocketPeer *
esd_test_socket_peer_new(gint fd);
EsdTestSocketPeer *
esd_test_socket_peer_connect(const gchar *path);
void
esd_test_socket_peer_close(EsdTestSocketPeer *self);
gboolean
esd_test_socket_peer_wait_eof(EsdTestSocketPeer *self, guint timeout_ms);

/* protocol exchanges over any peer */
void
esd_test_peer_start_process(EsdTestPeer *peer,
			    const gchar *process_id,
			    const gchar *argv_json,
			    const gchar *extra_params);
gchar *
esd_test_peer_run_process(EsdTestPeer *peer,
			  const gchar *process_id,
			  const gchar *argv_json,
			  const gchar *extra_params);
void
esd_test_scenario_echo_hi(EsdTestPeer *peer);

/* processes with @marker as one of their arguments */
guint
esd_test_count_processes(const gchar *marker);
gchar *
esd_test_new_marker(void);

/* the daemon with @fd as its descriptor 3, optionally as systemd passes it */
typedef enum {
	ESD_TEST_FD_PLAIN,	       /* only the descriptor */
	ESD_TEST_FD_SYSTEMD,	       /* LISTEN_FDS=1 and LISTEN_PID of the daemon */
	ESD_TEST_FD_SYSTEMD_OTHER_PID, /* LISTEN_FDS=1, LISTEN_PID of another process */
} EsdTestFdMode;

GSubprocess *
esd_test_spawn_daemon_with_fd(const gchar *const *args,
			      gint fd,
			      EsdTestFdMode mode,
			      const gchar *const *envp_extra,
			      const gchar *log_path);
gint
esd_test_subprocess_wait(GSubprocess *subprocess, guint timeout_ms);
guint
esd_test_log_count_problems(const gchar *log_path);

G_END_DECLS
