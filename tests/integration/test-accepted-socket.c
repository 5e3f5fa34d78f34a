/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "esd-test-socket.h"

/*
 * The accepted-socket transport: `--listen fd:N` with a connected socket and
 * with a listening one, and systemd socket activation (LISTEN_FDS and
 * LISTEN_PID set by a shell that then executes the daemon, which is what
 * systemd and systemd-socket-activate do) with a listening socket
 * (Accept=no) and with an accepted connection (Accept=yes). Each test starts
 * its own daemon with its output in a file, and fails on any warning in it.
 */

#define AS_TEST "/execserverd/integration/accepted-socket/"
#define WAIT_MS 5000

typedef struct {
	gchar *dir; /* short, for socket paths */
	gchar *socket_path;
	gchar *log;
	GSubprocess *daemon;
} Fixture;

static void
fixture_setup(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GError) error = NULL;

	fx->dir = g_dir_make_tmp("esd-as-XXXXXX", &error);
	g_assert_no_error(error);
	fx->socket_path = g_build_filename(fx->dir, "sock", NULL);
	fx->log = g_build_filename(fx->dir, "daemon.log", NULL);
}

static void
fixture_teardown(Fixture *fx, gconstpointer user_data)
{
	if (fx->daemon != NULL) {
		g_subprocess_force_exit(fx->daemon);
		esd_test_subprocess_wait(fx->daemon, WAIT_MS);
		g_clear_object(&fx->daemon);
	}
	g_unlink(fx->socket_path);
	g_unlink(fx->log);
	g_rmdir(fx->dir);
	g_free(fx->socket_path);
	g_free(fx->log);
	g_free(fx->dir);
}

/* SIGTERM, exit 0, nothing wrong in the log */
static void
fixture_stop_daemon(Fixture *fx)
{
	g_subprocess_send_signal(fx->daemon, SIGTERM);
	g_assert_cmpint(esd_test_subprocess_wait(fx->daemon, WAIT_MS), ==, 0);
	g_clear_object(&fx->daemon);
	g_assert_cmpuint(esd_test_log_count_problems(fx->log), ==, 0);
}

static void
fixture_assert_log_has(Fixture *fx, const gchar *text)
{
	g_autofree gchar *log = NULL;

	g_assert_true(g_file_get_contents(fx->log, &log, NULL, NULL));
	if (strstr(log, text) == NULL)
		g_error("the daemon's log does not mention \"%s\":\n%s", text, log);
}

static gint
listening_socket(const gchar *path)
{
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	gint fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpuint(strlen(path), <, sizeof(address.sun_path));
	strcpy(address.sun_path, path);
	g_assert_cmpint(bind(fd, (struct sockaddr *)&address, sizeof(address)), ==, 0);
	g_assert_cmpint(listen(fd, 16), ==, 0);
	return fd;
}

/* the daemon serving one end of a socketpair; returns the other */
static EsdTestSocketPeer *
fixture_spawn_connected(Fixture *fx, const gchar *const *args, EsdTestFdMode mode)
{
	gint pair[2];

	g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), ==, 0);
	fx->daemon = esd_test_spawn_daemon_with_fd(args, pair[1], mode, NULL, fx->log);
	close(pair[1]);
	return esd_test_socket_peer_new(pair[0]);
}

/* fd:N, connected: one connection, the daemon exits 0 when it closes */
static void
test_fd_connected(Fixture *fx, gconstpointer user_data)
{
	const gchar *args[] = {"--listen", "fd:3", "--verbose", NULL};
	g_autoptr(EsdTestSocketPeer) peer = fixture_spawn_connected(fx, args, ESD_TEST_FD_PLAIN);
	g_autofree gchar *peer_name = g_strdup_printf("from unix pid %d", (gint)getpid());

	esd_test_scenario_echo_hi(ESD_TEST_PEER(peer));
	esd_test_socket_peer_close(peer);
	g_assert_cmpint(esd_test_subprocess_wait(fx->daemon, WAIT_MS), ==, 0);
	g_clear_object(&fx->daemon);
	g_assert_cmpuint(esd_test_log_count_problems(fx->log), ==, 0);
	/* a local peer is named by its pid, and gets no network handshake timeout */
	fixture_assert_log_has(fx, peer_name);
}

/* fd:N, listening: every connection is accepted, and the daemon stays */
static void
test_fd_listening(Fixture *fx, gconstpointer user_data)
{
	const gchar *args[] = {"--listen", "fd:3", NULL};
	gint fd = listening_socket(fx->socket_path);
	g_autoptr(EsdTestSocketPeer) a = NULL;
	g_autoptr(EsdTestSocketPeer) b = NULL;
	g_autoptr(EsdTestSocketPeer) c = NULL;

	fx->daemon = esd_test_spawn_daemon_with_fd(args, fd, ESD_TEST_FD_PLAIN, NULL, fx->log);
	close(fd);
	a = esd_test_socket_peer_connect(fx->socket_path);
	b = esd_test_socket_peer_connect(fx->socket_path);
	esd_test_scenario_echo_hi(ESD_TEST_PEER(a));
	esd_test_scenario_echo_hi(ESD_TEST_PEER(b));
	esd_test_peer_assert_alive(ESD_TEST_PEER(a));
	esd_test_socket_peer_close(a);
	esd_test_socket_peer_close(b);
	c = esd_test_socket_peer_connect(fx->socket_path);
	esd_test_scenario_echo_hi(ESD_TEST_PEER(c));
	fixture_stop_daemon(fx);
}

/* systemd, Accept=no: found without --listen, and hidden from the commands */
static void
test_systemd_listening(Fixture *fx, gconstpointer user_data)
{
	const gchar *args[] = {"--verbose", NULL};
	const gchar *envp[] = {"ESD_ATEST_INHERITED=yes", NULL};
	gint fd = listening_socket(fx->socket_path);
	g_autoptr(EsdTestSocketPeer) peer = NULL;
	g_autofree gchar *session_id = NULL;
	g_autofree gchar *output = NULL;
	g_autofree gchar *log = NULL;

	fx->daemon = esd_test_spawn_daemon_with_fd(args, fd, ESD_TEST_FD_SYSTEMD, envp, fx->log);
	close(fd);
	peer = esd_test_socket_peer_connect(fx->socket_path);
	session_id = esd_test_peer_handshake(ESD_TEST_PEER(peer));
	output = esd_test_peer_run_process(
	    ESD_TEST_PEER(peer),
	    "env",
	    "[\"sh\",\"-c\",\"echo \\\"$ESD_ATEST_INHERITED ${LISTEN_PID-unset} "
	    "${LISTEN_FDS-unset}\\\"\"]",
	    "\"envPolicy\":{\"inherit\":\"all\",\"ignoreDefaultExcludes\":false,\"exclude\":[],"
	    "\"set\":{},\"includeOnly\":[]}");
	g_assert_cmpstr(output, ==, "yes unset unset\n");
	esd_test_socket_peer_close(peer);
	fixture_stop_daemon(fx);
	/* socket-activated, the daemon does not open its default WebSocket port */
	g_assert_true(g_file_get_contents(fx->log, &log, NULL, NULL));
	g_assert_null(strstr(log, "ws://"));
}

/* systemd, Accept=yes: the passed connection is served, then the daemon exits */
static void
test_systemd_connected(Fixture *fx, gconstpointer user_data)
{
	const gchar *args[] = {"--listen", "systemd", NULL};
	g_autoptr(EsdTestSocketPeer) peer = fixture_spawn_connected(fx, args, ESD_TEST_FD_SYSTEMD);

	esd_test_scenario_echo_hi(ESD_TEST_PEER(peer));
	esd_test_socket_peer_close(peer);
	g_assert_cmpint(esd_test_subprocess_wait(fx->daemon, WAIT_MS), ==, 0);
	g_clear_object(&fx->daemon);
	g_assert_cmpuint(esd_test_log_count_problems(fx->log), ==, 0);
}

/* descriptors and environments the daemon refuses at startup */
typedef enum {
	BAD_FD_PIPE,
	BAD_FD_DATAGRAM,
	BAD_FD_UNCONNECTED,
	BAD_FD_NONE,
} BadFdKind;

typedef struct {
	const gchar *name;
	const gchar *listen;
	BadFdKind fd_kind;
	EsdTestFdMode mode;
	const gchar *message;
} BadCase;

static const BadCase bad_cases[] = {
    {"pipe", "fd:3", BAD_FD_PIPE, ESD_TEST_FD_PLAIN, "fd 3 is not a socket"},
    {"datagram", "fd:3", BAD_FD_DATAGRAM, ESD_TEST_FD_PLAIN, "fd 3 is not a stream socket"},
    {"unconnected",
     "fd:3",
     BAD_FD_UNCONNECTED,
     ESD_TEST_FD_PLAIN,
     "fd 3 is neither listening nor connected"},
    {"not-open", "fd:9", BAD_FD_NONE, ESD_TEST_FD_PLAIN, "fd 9: cannot be used"},
    {"stdio-fd", "fd:1", BAD_FD_NONE, ESD_TEST_FD_PLAIN, "descriptors 0 to 2"},
    {"not-a-number", "fd:three", BAD_FD_NONE, ESD_TEST_FD_PLAIN, "invalid --listen fd:three"},
    {"systemd-unset", "systemd", BAD_FD_NONE, ESD_TEST_FD_PLAIN, "no sockets were passed"},
    {"systemd-other-pid",
     "systemd",
     BAD_FD_UNCONNECTED,
     ESD_TEST_FD_SYSTEMD_OTHER_PID,
     "passed to process 1, not to this one"},
    {"systemd-pipe", "systemd", BAD_FD_PIPE, ESD_TEST_FD_SYSTEMD, "fd 3 is not a socket"},
};

static void
test_bad(gconstpointer user_data)
{
	const BadCase *bad = user_data;
	const gchar *args[] = {"--listen", bad->listen, NULL};
	Fixture fx = {0};
	gint fds[2] = {-1, -1};

	fixture_setup(&fx, NULL);
	if (bad->fd_kind == BAD_FD_PIPE)
		g_assert_cmpint(pipe2(fds, O_CLOEXEC), ==, 0);
	else if (bad->fd_kind == BAD_FD_DATAGRAM)
		g_assert_cmpint(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, fds), ==, 0);
	else if (bad->fd_kind == BAD_FD_UNCONNECTED)
		fds[0] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	fx.daemon = esd_test_spawn_daemon_with_fd(args, fds[0], bad->mode, NULL, fx.log);
	g_assert_cmpint(esd_test_subprocess_wait(fx.daemon, WAIT_MS), ==, 1);
	g_clear_object(&fx.daemon);
	fixture_assert_log_has(&fx, bad->message);
	g_assert_cmpuint(esd_test_log_count_problems(fx.log), ==, 0);
	for (guint i = 0; i < G_N_ELEMENTS(fds); i++) {
		if (fds[i] >= 0)
			close(fds[i]);
	}
	fixture_teardown(&fx, NULL);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add(AS_TEST "fd-connected",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_fd_connected,
		   fixture_teardown);
	g_test_add(AS_TEST "fd-listening",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_fd_listening,
		   fixture_teardown);
	g_test_add(AS_TEST "systemd-listening",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_systemd_listening,
		   fixture_teardown);
	g_test_add(AS_TEST "systemd-connected",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_systemd_connected,
		   fixture_teardown);
	for (guint i = 0; i < G_N_ELEMENTS(bad_cases); i++) {
		g_autofree gchar *path = g_strdup_printf(AS_TEST "refused/%s", bad_cases[i].name);
		g_test_add_data_func(path, &bad_cases[i], test_bad);
	}
	return g_test_run();
}
