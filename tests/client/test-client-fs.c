/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <string.h>

#include "erpc-test-client.h"

/*
 * The fs calls of ErpcClient against the real daemon, over WebSocket and
 * stdio: whole files, metadata, directories, copy and remove, walks, file
 * handles, missing-path watches, and not-found errors.
 */

#define WAIT_RESULT(call)                                                                          \
	({                                                                                         \
		GAsyncResult *slot_ = NULL;                                                        \
		call;                                                                              \
		erpc_test_wait(&slot_);                                                            \
	})

static void
write_file(ErpcClient *client, const gchar *path, const gchar *text)
{
	g_autoptr(GBytes) data = g_bytes_new(text, strlen(text));
	g_autoptr(GError) error = NULL;
	g_autoptr(GAsyncResult) res = WAIT_RESULT(
	    erpc_client_fs_write_file_async(client, path, data, NULL, erpc_test_result_cb, &slot_));

	g_assert_true(erpc_client_fs_write_file_finish(client, res, &error));
	g_assert_no_error(error);
}

static gchar *
read_file(ErpcClient *client, const gchar *path, GError **error)
{
	g_autoptr(GAsyncResult) res = WAIT_RESULT(
	    erpc_client_fs_read_file_async(client, path, NULL, erpc_test_result_cb, &slot_));
	g_autoptr(GBytes) data = erpc_client_fs_read_file_finish(client, res, error);

	if (data == NULL)
		return NULL;
	return g_strndup(g_bytes_get_data(data, NULL), g_bytes_get_size(data));
}

static void
test_fs_files(ErpcTestFixture *fx, gconstpointer user_data)
{
	g_autofree gchar *path = g_build_filename(fx->tmpdir, "a file.txt", NULL);
	g_autofree gchar *copy = g_build_filename(fx->tmpdir, "copy.txt", NULL);
	g_autofree gchar *missing = g_build_filename(fx->tmpdir, "missing", NULL);
	g_autofree gchar *text = NULL;
	g_autofree gchar *canonical = NULL;
	g_autoptr(JsonObject) metadata = NULL;
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	ErpcClient *client = fx->client;

	write_file(client, path, "hello\n");
	text = read_file(client, path, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(text, ==, "hello\n");

	res = WAIT_RESULT(
	    erpc_client_fs_get_metadata_async(client, path, NULL, erpc_test_result_cb, &slot_));
	metadata = erpc_client_fs_get_metadata_finish(client, res, &error);
	g_assert_no_error(error);
	g_assert_true(json_object_get_boolean_member(metadata, "isFile"));
	g_assert_cmpint(json_object_get_int_member(metadata, "size"), ==, 6);
	g_clear_object(&res);

	res = WAIT_RESULT(erpc_client_fs_copy_async(client,
						    path,
						    copy,
						    FALSE,
						    NULL,
						    erpc_test_result_cb,
						    &slot_));
	g_assert_true(erpc_client_fs_copy_finish(client, res, &error));
	g_assert_no_error(error);
	g_clear_object(&res);
	g_clear_pointer(&text, g_free);
	text = read_file(client, copy, &error);
	g_assert_cmpstr(text, ==, "hello\n");

	res = WAIT_RESULT(
	    erpc_client_fs_canonicalize_async(client, copy, NULL, erpc_test_result_cb, &slot_));
	canonical = erpc_client_fs_canonicalize_finish(client, res, &error);
	g_assert_no_error(error);
	g_assert_true(g_str_has_suffix(canonical, "/copy.txt"));
	g_clear_object(&res);

	res = WAIT_RESULT(erpc_client_fs_remove_async(client,
						      copy,
						      FALSE,
						      FALSE,
						      NULL,
						      erpc_test_result_cb,
						      &slot_));
	g_assert_true(erpc_client_fs_remove_finish(client, res, &error));
	g_assert_no_error(error);
	g_clear_pointer(&text, g_free);

	/* -32004 comes back as ERPC_ERROR_NOT_FOUND, with the server's message */
	text = read_file(client, copy, &error);
	g_assert_null(text);
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_NOT_FOUND);
	g_assert_nonnull(strstr(error->message, "No such file"));
	g_clear_error(&error);
	text = read_file(client, missing, &error);
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_NOT_FOUND);
}

static void
test_fs_directories(ErpcTestFixture *fx, gconstpointer user_data)
{
	g_autofree gchar *dir = g_build_filename(fx->tmpdir, "d", "e", NULL);
	g_autofree gchar *file = g_build_filename(dir, "f", NULL);
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) entries = NULL;
	g_autoptr(JsonObject) walk = NULL;
	ErpcClient *client = fx->client;

	res = WAIT_RESULT(erpc_client_fs_create_directory_async(client,
								dir,
								TRUE,
								NULL,
								erpc_test_result_cb,
								&slot_));
	g_assert_true(erpc_client_fs_create_directory_finish(client, res, &error));
	g_assert_no_error(error);
	g_clear_object(&res);
	write_file(client, file, "x");

	res = WAIT_RESULT(
	    erpc_client_fs_read_directory_async(client, dir, NULL, erpc_test_result_cb, &slot_));
	entries = erpc_client_fs_read_directory_finish(client, res, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(json_array_get_length(entries), ==, 1);
	g_assert_cmpstr(
	    json_object_get_string_member(json_array_get_object_element(entries, 0), "fileName"),
	    ==,
	    "f");
	g_clear_object(&res);

	res = WAIT_RESULT(erpc_client_fs_walk_async(client,
						    fx->tmpdir,
						    4,
						    100,
						    NULL,
						    erpc_test_result_cb,
						    &slot_));
	walk = erpc_client_fs_walk_finish(client, res, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(walk, "entries")),
			 ==,
			 3);
	g_clear_object(&res);

	res = WAIT_RESULT(erpc_client_fs_remove_async(client,
						      fx->tmpdir,
						      TRUE,
						      TRUE,
						      NULL,
						      erpc_test_result_cb,
						      &slot_));
	g_assert_true(erpc_client_fs_remove_finish(client, res, &error));
	g_assert_no_error(error);
	g_assert_false(g_file_test(fx->tmpdir, G_FILE_TEST_EXISTS));
}

static void
test_fs_handles(ErpcTestFixture *fx, gconstpointer user_data)
{
	g_autofree gchar *path = g_build_filename(fx->tmpdir, "blocks", NULL);
	g_autofree gchar *handle = NULL;
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) first = g_bytes_new_static("abc", 3);
	g_autoptr(GBytes) second = g_bytes_new_static("def", 3);
	g_autoptr(GBytes) block = NULL;
	ErpcClient *client = fx->client;
	gboolean eof = FALSE;

	res = WAIT_RESULT(
	    erpc_client_fs_open_async(client, path, TRUE, NULL, erpc_test_result_cb, &slot_));
	handle = erpc_client_fs_open_finish(client, res, &error);
	g_assert_no_error(error);
	g_clear_object(&res);
	res = WAIT_RESULT(erpc_client_fs_write_block_async(client,
							   handle,
							   0,
							   first,
							   NULL,
							   erpc_test_result_cb,
							   &slot_));
	g_assert_true(erpc_client_fs_write_block_finish(client, res, &error));
	g_clear_object(&res);
	res = WAIT_RESULT(erpc_client_fs_write_block_async(client,
							   handle,
							   3,
							   second,
							   NULL,
							   erpc_test_result_cb,
							   &slot_));
	g_assert_true(erpc_client_fs_write_block_finish(client, res, &error));
	g_clear_object(&res);
	res = WAIT_RESULT(
	    erpc_client_fs_close_async(client, handle, NULL, erpc_test_result_cb, &slot_));
	g_assert_true(erpc_client_fs_close_finish(client, res, &error));
	g_assert_no_error(error);
	g_clear_object(&res);
	g_clear_pointer(&handle, g_free);

	res = WAIT_RESULT(
	    erpc_client_fs_open_async(client, path, FALSE, NULL, erpc_test_result_cb, &slot_));
	handle = erpc_client_fs_open_finish(client, res, &error);
	g_assert_no_error(error);
	g_clear_object(&res);
	res = WAIT_RESULT(erpc_client_fs_read_block_async(client,
							  handle,
							  2,
							  100,
							  NULL,
							  erpc_test_result_cb,
							  &slot_));
	block = erpc_client_fs_read_block_finish(client, res, &eof, &error);
	g_assert_no_error(error);
	g_assert_cmpmem(g_bytes_get_data(block, NULL), g_bytes_get_size(block), "cdef", 4);
	g_assert_true(eof);
	g_clear_object(&res);
	res = WAIT_RESULT(
	    erpc_client_fs_close_async(client, handle, NULL, erpc_test_result_cb, &slot_));
	g_assert_true(erpc_client_fs_close_finish(client, res, &error));
}

static void
missing_changed_cb(ErpcClient *client, guint64 watch_id, guint64 *fired)
{
	*fired = watch_id;
}

static void
test_fs_watch_missing(ErpcTestFixture *fx, gconstpointer user_data)
{
	g_autofree gchar *path = g_build_filename(fx->tmpdir, "later", NULL);
	const gchar *missing[] = {path, NULL};
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	gboolean watching = FALSE;
	guint64 fired = 0;

	g_signal_connect(fx->client, "missing-changed", G_CALLBACK(missing_changed_cb), &fired);
	res = WAIT_RESULT(erpc_client_fs_watch_missing_async(fx->client,
							     7,
							     missing,
							     NULL,
							     NULL,
							     erpc_test_result_cb,
							     &slot_));
	g_assert_true(erpc_client_fs_watch_missing_finish(fx->client, res, &watching, &error));
	g_assert_no_error(error);
	g_assert_true(watching);
	g_assert_true(g_file_set_contents(path, "", 0, NULL));
	ESD_WAIT_UNTIL(fired == 7, ERPC_TEST_TIMEOUT_MS);
	g_signal_handlers_disconnect_by_data(fx->client, &fired);
}

static void
add_tests(const gchar *transport, gboolean ws)
{
	struct {
		const gchar *name;
		void (*func)(ErpcTestFixture *, gconstpointer);
	} tests[] = {
	    {"files", test_fs_files},
	    {"directories", test_fs_directories},
	    {"handles", test_fs_handles},
	    {"watch-missing", test_fs_watch_missing},
	};
	for (guint i = 0; i < G_N_ELEMENTS(tests); i++) {
		g_autofree gchar *path =
		    g_strdup_printf("/execserverd/client/fs/%s/%s", transport, tests[i].name);
		g_test_add(path,
			   ErpcTestFixture,
			   GINT_TO_POINTER(ws),
			   erpc_test_fixture_setup,
			   tests[i].func,
			   erpc_test_fixture_teardown);
	}
}

int
main(int argc, char **argv)
{
	erpc_test_init(&argc, &argv);
	add_tests("ws", TRUE);
	add_tests("stdio", FALSE);
	return g_test_run();
}
