/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "esd-fs-handoff.h"
#include "esd-fs-sandbox-answer.h"

/*
 * esd-fs-helper without a sandbox, so that sanitizers see all of it: one
 * request on stdin, the answer on stdout, handles over --handoff-fd; what it
 * refuses; and the daemon's side of the exchange, which trusts nothing the
 * helper sends: the check of an answer's JSON and of handed-over handles.
 */

typedef struct {
	gchar *dir;
} Fixture;

typedef struct {
	gint status;
	gchar *out;
	gint handoff; /* the test's end of the socketpair, or -1 */
} HelperRun;

static void
helper_run_clear(HelperRun *run)
{
	g_free(run->out);
	if (run->handoff >= 0)
		close(run->handoff);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(HelperRun, helper_run_clear)

static void
fixture_setup(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	fx->dir = g_dir_make_tmp("esd-fs-helper-XXXXXX", &error);
	g_assert_no_error(error);
}

static void
fixture_teardown(Fixture *fx, gconstpointer data)
{
	g_autoptr(GDir) dir = g_dir_open(fx->dir, 0, NULL);
	const gchar *name;

	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *path = g_build_filename(fx->dir, name, NULL);
		g_assert_cmpint(g_unlink(path), ==, 0);
	}
	g_assert_cmpint(g_rmdir(fx->dir), ==, 0);
	g_free(fx->dir);
}

/* @request with `@` replaced by the scratch directory's URI */
static void
helper_run(Fixture *fx, const gchar *request, gboolean handoff, HelperRun *run)
{
	g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(
	    G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE);
	g_autoptr(GSubprocess) subprocess = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GString) text = g_string_new(request);
	g_autoptr(GBytes) input = NULL;
	g_autoptr(GBytes) output = NULL;
	g_autofree gchar *uri = g_filename_to_uri(fx->dir, NULL, NULL);
	g_autofree gchar *arg = NULL;
	const gchar *helper = g_getenv("ESD_TEST_FS_HELPER");
	gint pair[2] = {-1, -1};

	g_assert_nonnull(helper);
	g_string_replace(text, "@", uri, 0);
	input = g_bytes_new(text->str, text->len);
	run->handoff = -1;
	if (handoff) {
		g_assert_cmpint(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), ==, 0);
		g_subprocess_launcher_take_fd(launcher,
					      fcntl(pair[1], F_DUPFD_CLOEXEC, 100),
					      pair[1]);
		arg = g_strdup_printf("--handoff-fd=%d", pair[1]);
	}
	subprocess = g_subprocess_launcher_spawn(launcher, &error, helper, arg, NULL);
	g_assert_no_error(error);
	if (pair[1] >= 0)
		close(pair[1]);
	g_subprocess_communicate(subprocess, input, NULL, &output, NULL, &error);
	g_assert_no_error(error);
	g_assert_true(g_subprocess_get_if_exited(subprocess));
	run->status = g_subprocess_get_exit_status(subprocess);
	run->out = g_strndup(g_bytes_get_size(output) > 0 ? g_bytes_get_data(output, NULL) : "",
			     g_bytes_get_size(output));
	run->handoff = pair[0];
}

static gchar *
fx_file(Fixture *fx, const gchar *name)
{
	return g_build_filename(fx->dir, name, NULL);
}

static void
test_one_shot(Fixture *fx, gconstpointer data)
{
	g_autofree gchar *path = fx_file(fx, "f");
	g_autofree gchar *big = g_strnfill(400 * 1024, 'Q');
	g_autofree gchar *request = NULL;
	g_autofree gchar *contents = NULL;
	gsize len = 0;

	g_assert_true(g_file_set_contents(path, "hello", -1, NULL));
	{
		g_auto(HelperRun) run = {0};
		helper_run(fx,
			   "{\"id\":1,\"method\":\"fs/readFile\",\"params\":{\"path\":\"@/f\"}}\n",
			   FALSE,
			   &run);
		g_assert_cmpint(run.status, ==, 0);
		g_assert_cmpstr(run.out,
				==,
				"{\"id\":1,\"result\":{\"dataBase64\":\"aGVsbG8=\"}}\n");
	}
	{
		g_auto(HelperRun) run = {0};
		helper_run(
		    fx,
		    "{\"id\":1,\"method\":\"fs/getMetadata\",\"params\":{\"path\":\"@/nope\"}}",
		    FALSE,
		    &run);
		g_assert_cmpint(run.status, ==, 0);
		g_assert_cmpstr(
		    run.out,
		    ==,
		    "{\"error\":{\"code\":-32004,\"message\":\"No such file or directory "
		    "(os error 2)\"},\"id\":1}\n");
	}
	/* a large write is read where it was received */
	request = g_strdup_printf("{\"id\":1,\"method\":\"fs/writeFile\",\"params\":{\"path\":\"@/"
				  "big\",\"dataBase64\":\"%s\"}}",
				  big);
	{
		g_auto(HelperRun) run = {0};
		g_autofree gchar *big_path = fx_file(fx, "big");
		helper_run(fx, request, FALSE, &run);
		g_assert_cmpint(run.status, ==, 0);
		g_assert_cmpstr(run.out, ==, "{\"id\":1,\"result\":{}}\n");
		g_assert_true(g_file_get_contents(big_path, &contents, &len, NULL));
		g_assert_cmpuint(len, ==, 300 * 1024);
	}
}

static void
test_refused(Fixture *fx, gconstpointer data)
{
	const gchar *requests[] = {
	    "not json",
	    "{\"id\":1,\"result\":{}}",
	    "{\"id\":1,\"method\":\"fs/watchMissing\",\"params\":{\"watchId\":1,\"missing\":[]}}",
	    "{\"id\":1,\"method\":\"process/start\",\"params\":{}}",
	    "{\"id\":1,\"method\":\"fs/readFile\",\"params\":{\"path\":\"@/f\",\"sandbox\":{}}}",
	};

	for (guint i = 0; i < G_N_ELEMENTS(requests); i++) {
		g_auto(HelperRun) run = {0};
		helper_run(fx, requests[i], FALSE, &run);
		g_assert_cmpint(run.status, ==, 2);
		g_assert_cmpstr(run.out, ==, "");
	}
	/* fs/open with nowhere to hand the handle: an error, and nothing left behind */
	{
		g_auto(HelperRun) run = {0};
		helper_run(fx,
			   "{\"id\":1,\"method\":\"fs/open\",\"params\":{\"handleId\":\"h\","
			   "\"path\":\"@/new\",\"mode\":\"replace\"}}",
			   FALSE,
			   &run);
		g_assert_cmpint(run.status, ==, 0);
		g_assert_true(g_str_has_prefix(run.out, "{\"error\":{\"code\":-32603,"));
	}
	{
		g_autoptr(GDir) dir = g_dir_open(fx->dir, 0, NULL);
		g_assert_null(g_dir_read_name(dir));
	}
}

static void
test_handoff(Fixture *fx, gconstpointer data)
{
	g_autofree gchar *path = fx_file(fx, "f");
	g_autofree gchar *new_path = fx_file(fx, "new");
	g_autofree gchar *contents = NULL;
	g_autoptr(GError) error = NULL;

	g_assert_true(g_file_set_contents(path, "hello", -1, NULL));
	{
		g_auto(HelperRun) run = {0};
		g_autoptr(EsdFsHandle) handle = NULL;
		g_autoptr(GString) block = NULL;

		helper_run(fx,
			   "{\"id\":1,\"method\":\"fs/open\",\"params\":{\"handleId\":\"r\","
			   "\"path\":\"@/f\"}}",
			   TRUE,
			   &run);
		g_assert_cmpint(run.status, ==, 0);
		g_assert_cmpstr(run.out, ==, "{\"id\":1,\"result\":{\"handleId\":\"r\"}}\n");
		handle = esd_fs_handoff_receive(run.handoff, &error);
		g_assert_no_error(error);
		block = esd_fs_handle_read_block(handle, 1, 10, &error);
		g_assert_no_error(error);
		g_assert_cmpstr(block->str, ==, "{\"chunk\":\"ZWxsbw==\",\"eof\":true}");
	}
	{
		g_auto(HelperRun) run = {0};
		g_autoptr(EsdFsHandle) handle = NULL;
		g_autoptr(GBytes) bytes = g_bytes_new_static("written", 7);

		helper_run(fx,
			   "{\"id\":1,\"method\":\"fs/open\",\"params\":{\"handleId\":\"w\","
			   "\"path\":\"@/new\",\"mode\":\"replace\"}}",
			   TRUE,
			   &run);
		g_assert_cmpint(run.status, ==, 0);
		handle = esd_fs_handoff_receive(run.handoff, &error);
		g_assert_no_error(error);
		g_assert_false(g_file_test(new_path, G_FILE_TEST_EXISTS));
		g_assert_true(esd_fs_handle_write_block(handle, 0, bytes, &error));
		g_assert_true(esd_fs_handle_commit(handle, &error));
		g_assert_no_error(error);
		g_assert_true(g_file_get_contents(new_path, &contents, NULL, NULL));
		g_assert_cmpstr(contents, ==, "written");
	}
}

/* what a misbehaving helper could send instead of a handle */
static void
test_handoff_hostile(Fixture *fx, gconstpointer data)
{
	const struct {
		const gchar *data;
		gsize len;
		gboolean directory; /* send the scratch directory instead of a file */
		guint n_fds;
	} cases[] = {
	    {"r", 2, TRUE, 1},		/* a directory to read */
	    {"r", 2, FALSE, 2},		/* too many descriptors */
	    {"r", 2, FALSE, 0},		/* none */
	    {"x", 2, FALSE, 1},		/* unknown mode */
	    {"w\0../x\0", 7, FALSE, 2}, /* a name with a slash */
	    {"w\0x", 3, FALSE, 2},	/* not terminated */
	    {"w\x80x\0", 4, FALSE, 2},	/* unknown flag */
	    {"w\0x\0", 4, FALSE, 2},	/* a file where the directory goes */
	    {"w\0x\0", 4, FALSE, 1},	/* no directory */
	    {"w\x08x\0", 4, FALSE, 2},	/* a staging name announced, not sent */
	    {"", 0, FALSE, 0},		/* nothing */
	};
	g_autofree gchar *path = fx_file(fx, "f");

	g_assert_true(g_file_set_contents(path, "x", -1, NULL));
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(EsdFsHandle) handle = NULL;
		gint pair[2];
		gint fds[2];
		union {
			struct cmsghdr align;
			gchar buf[CMSG_SPACE(sizeof(gint) * 2)];
		} control;
		struct iovec iov = {(gpointer)cases[i].data, cases[i].len};
		struct msghdr msg = {0};

		memset(&control, 0, sizeof(control));
		g_assert_cmpint(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), ==, 0);
		fds[0] = cases[i].directory ? open(fx->dir, O_RDONLY | O_CLOEXEC)
					    : open(path, O_RDWR | O_CLOEXEC);
		fds[1] = open(path, O_RDWR | O_CLOEXEC);
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		if (cases[i].n_fds > 0) {
			struct cmsghdr *cmsg;
			msg.msg_control = control.buf;
			msg.msg_controllen = CMSG_SPACE(sizeof(gint) * cases[i].n_fds);
			cmsg = CMSG_FIRSTHDR(&msg);
			cmsg->cmsg_level = SOL_SOCKET;
			cmsg->cmsg_type = SCM_RIGHTS;
			cmsg->cmsg_len = CMSG_LEN(sizeof(gint) * cases[i].n_fds);
			memcpy(CMSG_DATA(cmsg), fds, sizeof(gint) * cases[i].n_fds);
		}
		if (cases[i].len > 0 || cases[i].n_fds > 0)
			g_assert_cmpint(sendmsg(pair[1], &msg, 0), >=, 0);
		close(pair[1]);
		close(fds[0]);
		close(fds[1]);
		handle = esd_fs_handoff_receive(pair[0], &error);
		close(pair[0]);
		g_assert_null(handle);
		g_assert_error(error, ERPC_ERROR, ERPC_ERROR_INTERNAL);
	}
}

static void
test_json_check(void)
{
	const gchar *good[] = {"{}",
			       "[]",
			       " {\"a\" : [1, -2.5e+3, true, false, null, \"x\\u00e9\\n\"]} ",
			       "\"caf\xc3\xa9\"",
			       "0",
			       "{\"a\":{\"b\":{}}}"};
	const gchar *bad[] = {"",
			      "{",
			      "{}}",
			      "{},{}",
			      "{\"a\":1,}",
			      "[1,]",
			      "\"\n\"",
			      "\"\\x\"",
			      "\"\\u12\"",
			      "01",
			      "1.",
			      "tru",
			      "{1:2}",
			      "\"\xff\"",
			      "{\"a\":1}\n{\"b\":2}"};
	g_autoptr(GString) deep = g_string_new(NULL);

	for (guint i = 0; i < G_N_ELEMENTS(good); i++)
		g_assert_true(esd_fs_json_is_value(good[i], strlen(good[i])));
	for (guint i = 0; i < G_N_ELEMENTS(bad); i++)
		g_assert_false(esd_fs_json_is_value(bad[i], strlen(bad[i])));
	/* as deep as the daemon takes requests, not deeper */
	for (guint i = 0; i < 64; i++)
		g_string_append_c(deep, '[');
	for (guint i = 0; i < 64; i++)
		g_string_append_c(deep, ']');
	g_assert_true(esd_fs_json_is_value(deep->str, deep->len));
	g_string_prepend_c(deep, '[');
	g_string_append_c(deep, ']');
	g_assert_false(esd_fs_json_is_value(deep->str, deep->len));
}

/* the daemon and the helper tell a result from anything else the same way */
static void
test_result_head(void)
{
	const gchar *results[] = {"{\"id\":1,\"result\":{}}", "{\"id\":1,\"result\":"};
	const gchar *others[] = {"",
				 "{\"id\":1,\"result\"",
				 "{\"id\":1,\"error\":{\"code\":-32600,\"message\":\"x\"}}",
				 "{\"id\":2,\"result\":{}}",
				 "{\"id\":11,\"result\":{}}",
				 "{\"result\":{},\"id\":1}",
				 "{ \"id\":1,\"result\":{}}"};

	for (guint i = 0; i < G_N_ELEMENTS(results); i++)
		g_assert_true(esd_fs_answer_is_result(results[i], strlen(results[i])));
	for (guint i = 0; i < G_N_ELEMENTS(others); i++)
		g_assert_false(esd_fs_answer_is_result(others[i], strlen(others[i])));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add("/execserverd/fs-helper/one-shot",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_one_shot,
		   fixture_teardown);
	g_test_add("/execserverd/fs-helper/refused",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_refused,
		   fixture_teardown);
	g_test_add("/execserverd/fs-helper/handoff",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_handoff,
		   fixture_teardown);
	g_test_add("/execserverd/fs-helper/handoff-hostile",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_handoff_hostile,
		   fixture_teardown);
	g_test_add_func("/execserverd/fs-helper/json-check", test_json_check);
	g_test_add_func("/execserverd/fs-helper/result-head", test_result_head);
	return g_test_run();
}
