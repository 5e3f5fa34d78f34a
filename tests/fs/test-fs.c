/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-harness.h"

/*
 * The fs-local plugin against the real daemon, over WebSocket and stdio,
 * written from PROTOCOL.md §3, §4, §5.1, §5.6, §6.1, §6.4, §9, §9.1 and §17
 * and the transcripts "fs/... basic operations", "fs/... error cases" and
 * B.12: every method's results and errors, URIs, params, the sandbox member,
 * nothing lost on failure, pipelining, and a 50 MiB round trip. File handles
 * and missing-path watches are in test-fs-watch.c.
 *
 * Every case runs in a child process (g_test_trap_subprocess()) so that a
 * daemon that hangs or a failed assertion costs one case, not the rest of
 * the run; the child starts its own daemon and works in a fresh scratch
 * directory under one g_dir_make_tmp() root, which the parent removes at the
 * end whatever happened.
 *
 * Templates: requests, expected results and scratch paths are written with
 * `'` for `"`; `@{rel}` becomes the quoted file:// URI of the scratch path
 * `rel` (`@{}` is the scratch directory itself) and `%{rel}` its native path.
 * Error message patterns are expanded the same way, except that `'` stays.
 */

/* harness: fs-harness.h */

/* the first connection's shortcuts */

static JsonNode *
fx_call(Fx *fx, const gchar *method, const gchar *params)
{
	return conn_call(fx, fx->conn, method, params);
}

static JsonNode *
fx_ok(Fx *fx, const gchar *method, const gchar *params)
{
	return conn_ok(fx, fx->conn, method, params);
}

static void
fx_expect(Fx *fx, const gchar *method, const gchar *params, const gchar *expected)
{
	conn_expect(fx, fx->conn, method, params, expected);
}

static void
fx_fail(Fx *fx, const gchar *method, const gchar *params, gint64 code, const gchar *message)
{
	conn_fail(fx, fx->conn, method, params, code, message);
}

/* an error reply whatever its code and message; returns the code */
static gint64
fx_fail_any(Fx *fx, const gchar *method, const gchar *params)
{
	JsonNode *reply = fx_call(fx, method, params);

	if (esd_test_json_get(reply, "error") == NULL)
		describe_reply_failure(reply, method, "an error");
	g_assert_nonnull(esd_test_json_get(reply, "error.message"));
	return esd_test_json_get_int(reply, "error.code");
}

static void
disk_assert_type(Fx *fx, const gchar *rel, mode_t type)
{
	GStatBuf st;
	const gchar *path = fx_path(fx, rel);

	if (g_lstat(path, &st) != 0)
		g_error("%s: %s", rel, g_strerror(errno));
	if ((st.st_mode & S_IFMT) != type)
		g_error("%s has mode %o, expected type %o", rel, st.st_mode, type);
}

static gint
compare_strings(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const gchar *const *)a, *(const gchar *const *)b);
}

/* the names in directory @rel, sorted and joined with "," */
static const gchar *
disk_list(Fx *fx, const gchar *rel)
{
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GDir) dir = g_dir_open(fx_path(fx, rel), 0, NULL);
	const gchar *name;

	g_assert_nonnull(dir);
	while ((name = g_dir_read_name(dir)) != NULL)
		g_ptr_array_add(names, g_strdup(name));
	g_ptr_array_sort(names, compare_strings);
	g_ptr_array_add(names, NULL);
	return fx_keep(fx, g_strjoinv(",", (gchar **)names->pdata));
}

static void
disk_set_mtime(Fx *fx, const gchar *rel, gint64 ms)
{
	struct timespec times[2];

	times[0].tv_sec = ms / 1000;
	times[0].tv_nsec = (ms % 1000) * 1000000 + 456789;
	times[1] = times[0];
	if (utimensat(AT_FDCWD, fx_path(fx, rel), times, AT_SYMLINK_NOFOLLOW) != 0)
		g_error("utimensat: %s", g_strerror(errno));
}

/* fixture */

/* JSON helpers */

static gint
compare_entries(gconstpointer a, gconstpointer b)
{
	JsonNode *na = *(JsonNode *const *)a;
	JsonNode *nb = *(JsonNode *const *)b;
	return strcmp(esd_test_json_get_string(na, "fileName"),
		      esd_test_json_get_string(nb, "fileName"));
}

/* fs/readDirectory entries in name order (the daemon returns raw order) */
static gchar *
sorted_entries(JsonNode *result)
{
	JsonNode *entries = esd_test_json_get(result, "entries");
	g_autoptr(GPtrArray) items = g_ptr_array_new();
	g_autoptr(JsonArray) array = json_array_new();
	g_autoptr(JsonNode) node = json_node_new(JSON_NODE_ARRAY);

	g_assert_nonnull(entries);
	g_assert_true(JSON_NODE_HOLDS_ARRAY(entries));
	g_assert_cmpuint(json_object_get_size(json_node_get_object(result)), ==, 1);
	for (guint i = 0; i < json_array_get_length(json_node_get_array(entries)); i++)
		g_ptr_array_add(items, json_array_get_element(json_node_get_array(entries), i));
	g_ptr_array_sort(items, compare_entries);
	for (guint i = 0; i < items->len; i++)
		json_array_add_element(array, json_node_copy(g_ptr_array_index(items, i)));
	json_node_set_array(node, array);
	return json_to_string(node, FALSE);
}

static void
fx_expect_directory(Fx *fx, const gchar *rel, const gchar *expected)
{
	g_autofree gchar *params = g_strdup_printf("{'path':@{%s}}", rel);
	JsonNode *result = fx_ok(fx, "fs/readDirectory", params);
	g_autofree gchar *got = sorted_entries(result);

	esd_assert_json_eq(got, fx_json(fx, expected));
}

/* the walk options object */
static gchar *
walk_params(const gchar *rel, guint depth, guint dirs, guint entries, gboolean follow, gint prune)
{
	return g_strdup_printf("{'path':@{%s},'options':{'maxDepth':%u,'maxDirectories':%u,"
			       "'maxEntries':%u,'followDirectorySymlinks':%s%s}}",
			       rel,
			       depth,
			       dirs,
			       entries,
			       follow ? "true" : "false",
			       prune < 0 ? ""
			       : prune	 ? ",'pruneHiddenDirectories':true"
					 : ",'pruneHiddenDirectories':false");
}

static void
fx_expect_walk(Fx *fx,
	       const gchar *rel,
	       guint depth,
	       guint dirs,
	       guint entries,
	       gboolean follow,
	       gint prune,
	       const gchar *expected)
{
	g_autofree gchar *params = walk_params(rel, depth, dirs, entries, follow, prune);
	fx_expect(fx, "fs/walk", params, expected);
}

/* 1. fs/readFile */

static void
test_read_file(Fx *fx)
{
	guchar all[256];
	g_autofree gchar *all_b64 = NULL;
	g_autofree gchar *expected = NULL;

	disk_write(fx, "bin", "\x00\x01\x02\xff", 4);
	fx_expect(fx, "fs/readFile", "{'path':@{bin}}", "{'dataBase64':'AAEC/w=='}");
	disk_write(fx, "empty", "", 0);
	fx_expect(fx, "fs/readFile", "{'path':@{empty}}", "{'dataBase64':''}");
	for (guint i = 0; i < sizeof(all); i++)
		all[i] = (guchar)i;
	disk_write(fx, "all", (const gchar *)all, sizeof(all));
	all_b64 = g_base64_encode(all, sizeof(all));
	expected = g_strdup_printf("{'dataBase64':'%s'}", all_b64);
	fx_expect(fx, "fs/readFile", "{'path':@{all}}", expected);
	/* symlinks are followed by default; no-follow reads a plain file */
	disk_symlink(fx, "bin", "link");
	fx_expect(fx, "fs/readFile", "{'path':@{link}}", "{'dataBase64':'AAEC/w=='}");
	fx_expect(fx,
		  "fs/readFile",
		  "{'path':@{bin},'followSymlinks':false}",
		  "{'dataBase64':'AAEC/w=='}");
	fx_expect(fx,
		  "fs/readFile",
		  "{'path':@{bin},'followSymlinks':true}",
		  "{'dataBase64':'AAEC/w=='}");
	/* unknown members are ignored */
	fx_expect(fx,
		  "fs/readFile",
		  "{'path':@{bin},'future':{'x':[1]},'sandbox':null}",
		  "{'dataBase64':'AAEC/w=='}");
}

/* transcripts "fs/... error cases", B.12, §17 */
static void
test_read_file_errors(Fx *fx)
{
	disk_write(fx, "f", "x", 1);
	disk_mkdir(fx, "d");
	disk_symlink(fx, "f", "flink");
	disk_symlink(fx, "d", "dlink");
	disk_write(fx, "d/inner", "y", 1);
	fx_fail(fx, "fs/readFile", "{'path':@{missing.txt}}", -32004, ENOENT_TEXT);
	fx_fail(fx, "fs/readFile", "{'path':@{d}}", -32600, "path `%{d}` is not a file");
	fx_fail(fx, "fs/readFile", "{'path':@{f/x}}", -32603, "Not a directory (os error 20)");
	fx_fail(fx,
		"fs/readFile",
		"{'path':@{flink},'followSymlinks':false}",
		-32603,
		"Symbolic link loop (os error 40)");
	fx_fail(fx,
		"fs/readFile",
		"{'path':@{dlink/inner},'followSymlinks':false}",
		-32600,
		"path contains a symbolic link");
	fx_fail(fx, "fs/readFile", "{}", -32602, "missing field `path`");
	fx_fail(fx, "fs/readFile", "{'path':5}", -32602, "invalid type: *");
	fx_fail(fx,
		"fs/readFile",
		"{'path':@{f},'followSymlinks':'yes'}",
		-32602,
		"invalid type: *");
}

/* 1. fs/writeFile */

static void
test_write_file(Fx *fx)
{
	fx_expect(fx, "fs/writeFile", "{'path':@{new.bin},'dataBase64':'AAEC/w=='}", "{}");
	disk_assert_content(fx, "new.bin", "\x00\x01\x02\xff", 4);
	disk_assert_type(fx, "new.bin", S_IFREG);
	/* truncates */
	disk_write(fx, "old", "0123456789abcdef", -1);
	fx_expect(fx, "fs/writeFile", "{'path':@{old},'dataBase64':'YWI='}", "{}");
	disk_assert_content(fx, "old", "ab", -1);
	fx_expect(fx, "fs/writeFile", "{'path':@{old},'dataBase64':''}", "{}");
	disk_assert_content(fx, "old", "", 0);
	fx_expect(fx, "fs/writeFile", "{'path':@{empty},'dataBase64':''}", "{}");
	disk_assert_content(fx, "empty", "", 0);
	fx_expect(fx, "fs/writeFile", "{'path':@{old},'dataBase64':'aGVsbG8gd29ybGQK'}", "{}");
	disk_assert_content(fx, "old", "hello world\n", -1);
	/* and reads back */
	fx_expect(fx, "fs/readFile", "{'path':@{new.bin}}", "{'dataBase64':'AAEC/w=='}");
	/* nothing else was left in the directory */
	g_assert_cmpstr(disk_list(fx, ""), ==, "empty,new.bin,old");
}

/* symlinks are followed by default: the target changes, the link stays a link */
static void
test_write_file_symlink(Fx *fx)
{
	disk_mkdir(fx, "d");
	disk_write(fx, "d/target", "old content", -1);
	disk_symlink(fx, "d/target", "link");
	fx_expect(fx, "fs/writeFile", "{'path':@{link},'dataBase64':'bmV3'}", "{}");
	disk_assert_type(fx, "link", S_IFLNK);
	disk_assert_content(fx, "d/target", "new", -1);
	/* a dangling link: its target is created */
	disk_symlink(fx, "d/created", "dangling");
	fx_expect(fx, "fs/writeFile", "{'path':@{dangling},'dataBase64':'bmV3'}", "{}");
	disk_assert_type(fx, "dangling", S_IFLNK);
	disk_assert_content(fx, "d/created", "new", -1);
	/* through a directory link */
	disk_symlink(fx, "d", "dlink");
	fx_expect(fx, "fs/writeFile", "{'path':@{dlink/via},'dataBase64':'dmlh'}", "{}");
	disk_assert_content(fx, "d/via", "via", -1);
	g_assert_cmpstr(disk_list(fx, "d"), ==, "created,target,via");
	g_assert_cmpstr(disk_list(fx, ""), ==, "d,dangling,dlink,link");
}

/* followSymlinks:false (§9): a link is refused, whatever the code, and its target is untouched */
static void
test_write_file_no_follow(Fx *fx)
{
	gint64 code;

	disk_mkdir(fx, "d");
	disk_write(fx, "d/target", "old content", -1);
	disk_symlink(fx, "d/target", "link");
	disk_symlink(fx, "d", "dlink");
	code = fx_fail_any(fx,
			   "fs/writeFile",
			   "{'path':@{link},'dataBase64':'bmV3','followSymlinks':false}");
	g_assert_true(code == -32600 || code == -32603);
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{dlink/new},'dataBase64':'bmV3','followSymlinks':false}",
		-32600,
		"path contains a symbolic link");
	disk_symlink(fx, "d/would-be-created", "dangling");
	code = fx_fail_any(fx,
			   "fs/writeFile",
			   "{'path':@{dangling},'dataBase64':'bmV3','followSymlinks':false}");
	g_assert_true(code == -32600 || code == -32603);
	disk_assert_type(fx, "dangling", S_IFLNK);
	disk_assert_type(fx, "link", S_IFLNK);
	disk_assert_content(fx, "d/target", "old content", -1);
	g_assert_cmpstr(disk_list(fx, "d"), ==, "target");
	/* a plain path is fine */
	fx_expect(fx,
		  "fs/writeFile",
		  "{'path':@{d/target},'dataBase64':'bmV3','followSymlinks':false}",
		  "{}");
	disk_assert_content(fx, "d/target", "new", -1);
	fx_fail(fx,
		"fs/createDirectory",
		"{'path':@{dlink/sub},'followSymlinks':false}",
		-32600,
		"path contains a symbolic link");
	fx_fail(fx,
		"fs/getMetadata",
		"{'path':@{dlink/target},'followSymlinks':false}",
		-32600,
		"path contains a symbolic link");
	g_assert_cmpstr(disk_list(fx, "d"), ==, "target");
	fx_expect(fx, "fs/createDirectory", "{'path':@{d/sub},'followSymlinks':false}", "{}");
	disk_assert_type(fx, "d/sub", S_IFDIR);
}

/* "truncates" (§9): the file itself is rewritten, so it keeps its owner */
static void
test_write_file_owner(Fx *fx)
{
	GStatBuf st;

	disk_write(fx, "file", "old content", -1);
	g_assert_cmpint(chown(fx_path(fx, "file"), 65534, 65534), ==, 0);
	fx_expect(fx, "fs/writeFile", "{'path':@{file},'dataBase64':'bmV3'}", "{}");
	disk_assert_content(fx, "file", "new", -1);
	g_assert_cmpint(g_stat(fx_path(fx, "file"), &st), ==, 0);
	g_assert_cmpint(st.st_uid, ==, 65534);
	g_assert_cmpint(st.st_gid, ==, 65534);
}

/* "truncates" (§9): the file itself is rewritten, so its other hard links see the new content */
static void
test_write_file_hardlink(Fx *fx)
{
	disk_write(fx, "file", "old content", -1);
	g_assert_cmpint(link(fx_path(fx, "file"), fx_path(fx, "other-name")), ==, 0);
	fx_expect(fx, "fs/writeFile", "{'path':@{file},'dataBase64':'bmV3'}", "{}");
	disk_assert_content(fx, "file", "new", -1);
	disk_assert_content(fx, "other-name", "new", -1);
}

/*
 * "creates/truncates" (§9): a new file gets the usual 0666 & ~umask, and an
 * existing file keeps its permission bits, as open(O_CREAT|O_TRUNC) does
 */
static void
test_write_file_modes(Fx *fx)
{
	GStatBuf st;

	fx_expect(fx, "fs/writeFile", "{'path':@{new},'dataBase64':'YQ=='}", "{}");
	g_assert_cmpint(g_stat(fx_path(fx, "new"), &st), ==, 0);
	g_assert_cmpint(st.st_mode & 07777, ==, 0644);
	disk_write(fx, "script", "#!/bin/sh\n", -1);
	g_assert_cmpint(g_chmod(fx_path(fx, "script"), 0751), ==, 0);
	fx_expect(fx,
		  "fs/writeFile",
		  "{'path':@{script},'dataBase64':'IyEvYmluL3NoCnRydWUK'}",
		  "{}");
	disk_assert_content(fx, "script", "#!/bin/sh\ntrue\n", -1);
	g_assert_cmpint(g_stat(fx_path(fx, "script"), &st), ==, 0);
	g_assert_cmpint(st.st_mode & 07777, ==, 0751);
}

static void
test_write_file_errors(Fx *fx)
{
	disk_mkdir(fx, "d");
	disk_write(fx, "f", "keep", -1);
	fx_fail(fx, "fs/writeFile", "{'path':@{nodir/f.txt},'dataBase64':''}", -32004, ENOENT_TEXT);
	fx_fail(fx, "fs/writeFile", "{'path':@{d},'dataBase64':'YQ=='}", -32603, "Is a directory*");
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{f/x},'dataBase64':'YQ=='}",
		-32603,
		"Not a directory (os error 20)");
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{bad.txt},'dataBase64':'not base64!'}",
		-32600,
		"fs/writeFile requires valid base64 dataBase64: *");
	/* standard alphabet with padding only */
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{bad.txt},'dataBase64':'YWI'}",
		-32600,
		"fs/writeFile requires valid base64 dataBase64: *");
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{bad.txt},'dataBase64':'-_-_'}",
		-32600,
		"fs/writeFile requires valid base64 dataBase64: *");
	fx_fail(fx, "fs/writeFile", "{'path':@{bad.txt}}", -32602, "missing field `dataBase64`");
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{bad.txt},'dataBase64':5}",
		-32602,
		"invalid type: *");
	disk_assert_missing(fx, "bad.txt");
	disk_assert_missing(fx, "nodir");
	disk_assert_content(fx, "f", "keep", -1);
	g_assert_cmpstr(disk_list(fx, ""), ==, "d,f");
	g_assert_cmpstr(disk_list(fx, "d"), ==, "");
}

/* 1. fs/createDirectory */

static void
test_create_directory(Fx *fx)
{
	fx_expect(fx, "fs/createDirectory", "{'path':@{x/y/z}}", "{}");
	disk_assert_type(fx, "x/y/z", S_IFDIR);
	/* recursive (the default): an existing directory is fine */
	fx_expect(fx, "fs/createDirectory", "{'path':@{x/y/z}}", "{}");
	fx_expect(fx, "fs/createDirectory", "{'path':@{x},'recursive':true}", "{}");
	fx_expect(fx, "fs/createDirectory", "{'path':@{x/new},'recursive':false}", "{}");
	disk_assert_type(fx, "x/new", S_IFDIR);
	fx_fail(fx,
		"fs/createDirectory",
		"{'path':@{x},'recursive':false}",
		-32603,
		"File exists (os error 17)");
	fx_fail(fx, "fs/createDirectory", "{'path':@{p/q},'recursive':false}", -32004, ENOENT_TEXT);
	disk_assert_missing(fx, "p");
	disk_write(fx, "f", "data", -1);
	fx_fail(fx, "fs/createDirectory", "{'path':@{f}}", -32603, "File exists*");
	fx_fail(fx,
		"fs/createDirectory",
		"{'path':@{f},'recursive':false}",
		-32603,
		"File exists (os error 17)");
	fx_fail(fx, "fs/createDirectory", "{'path':@{f/sub}}", -32603, "*");
	disk_assert_content(fx, "f", "data", -1);
	fx_fail(fx,
		"fs/createDirectory",
		"{'path':@{q},'recursive':'no'}",
		-32602,
		"invalid type: *");
	disk_assert_missing(fx, "q");
	g_assert_cmpstr(disk_list(fx, ""), ==, "f,x");
}

/* links in the way: followed when they lead to a directory, EEXIST otherwise */
static void
test_create_directory_links(Fx *fx)
{
	disk_mkdir(fx, "real");
	disk_symlink(fx, "real", "dlink");
	disk_symlink(fx, "nowhere", "dangling");
	fx_expect(fx, "fs/createDirectory", "{'path':@{dlink}}", "{}");
	fx_expect(fx, "fs/createDirectory", "{'path':@{dlink/sub/deeper}}", "{}");
	disk_assert_type(fx, "real/sub/deeper", S_IFDIR);
	fx_fail(fx,
		"fs/createDirectory",
		"{'path':@{dlink},'recursive':false}",
		-32603,
		"File exists (os error 17)");
	fx_fail(fx, "fs/createDirectory", "{'path':@{dangling}}", -32603, "File exists*");
	fx_fail(fx,
		"fs/createDirectory",
		"{'path':@{dangling},'recursive':false}",
		-32603,
		"File exists (os error 17)");
	disk_assert_type(fx, "dangling", S_IFLNK);
	disk_assert_missing(fx, "nowhere");
	g_assert_cmpstr(disk_list(fx, ""), ==, "dangling,dlink,real");
}

/* a symlink loop is ELOOP: -32603 (§9), whatever libc calls it */
static void
test_symlink_loop_errors(Fx *fx)
{
	const gchar *eloop = "* (os error 40)";

	disk_symlink(fx, "loop2", "loop1");
	disk_symlink(fx, "loop1", "loop2");
	fx_fail(fx, "fs/readFile", "{'path':@{loop1}}", -32603, eloop);
	fx_fail(fx, "fs/getMetadata", "{'path':@{loop1}}", -32603, eloop);
	fx_fail(fx, "fs/canonicalize", "{'path':@{loop1}}", -32603, eloop);
	fx_fail(fx, "fs/readDirectory", "{'path':@{loop1}}", -32603, eloop);
	fx_fail(fx, "fs/writeFile", "{'path':@{loop1},'dataBase64':'YQ=='}", -32603, eloop);
	fx_fail(fx, "fs/open", "{'handleId':'h','path':@{loop1}}", -32603, eloop);
	fx_fail(fx, "fs/readFile", "{'path':@{loop1/x}}", -32603, eloop);
	/* the links themselves can go */
	fx_expect(fx, "fs/remove", "{'path':@{loop1}}", "{}");
	disk_assert_missing(fx, "loop1");
	g_assert_cmpstr(disk_list(fx, ""), ==, "loop2");
}

/* 1. fs/getMetadata */

static const gchar *
metadata(Fx *fx,
	 gboolean is_dir,
	 gboolean is_file,
	 gboolean is_link,
	 const gchar *size_rel,
	 gint64 created,
	 gint64 modified)
{
	GStatBuf st;

	g_assert_cmpint(g_stat(fx_path(fx, size_rel), &st), ==, 0);
	return fx_keep(fx,
		       g_strdup_printf("{'isDirectory':%s,'isFile':%s,'isSymlink':%s,"
				       "'size':%" G_GINT64_FORMAT ",'createdAtMs':%" G_GINT64_FORMAT
				       ",'modifiedAtMs':%" G_GINT64_FORMAT "}",
				       is_dir ? "true" : "false",
				       is_file ? "true" : "false",
				       is_link ? "true" : "false",
				       (gint64)st.st_size,
				       created,
				       modified));
}

/* createdAtMs: an integer, 0 when unknown (0.171.0 gives 0 on Linux), never in the future */
static gint64
created_at(Fx *fx, const gchar *params)
{
	JsonNode *result = fx_ok(fx, "fs/getMetadata", params);
	gint64 created = esd_test_json_get_int(result, "createdAtMs");

	g_assert_cmpint(created, >=, 0);
	g_assert_cmpint(created, <=, g_get_real_time() / 1000 + 1000);
	return created;
}

static void
test_get_metadata(Fx *fx)
{
	const gint64 file_ms = 1700000000123;
	const gint64 dir_ms = 1600000000987;
	gint64 created;

	disk_mkdir(fx, "dir1");
	disk_write(fx, "dir1/a.txt", "hello\n", -1);
	disk_set_mtime(fx, "dir1/a.txt", file_ms);
	disk_symlink(fx, "dir1/a.txt", "link");
	disk_symlink(fx, "dir1", "dlink");
	disk_write(fx, "empty", "", 0);
	disk_set_mtime(fx, "empty", file_ms);
	disk_fifo(fx, "fifo");
	disk_set_mtime(fx, "fifo", file_ms);
	disk_set_mtime(fx, "dir1", dir_ms);

	created = created_at(fx, "{'path':@{dir1/a.txt}}");
	fx_expect(fx,
		  "fs/getMetadata",
		  "{'path':@{dir1/a.txt}}",
		  metadata(fx, FALSE, TRUE, FALSE, "dir1/a.txt", created, file_ms));
	fx_expect(fx,
		  "fs/getMetadata",
		  "{'path':@{dir1/a.txt},'followSymlinks':false}",
		  metadata(fx, FALSE, TRUE, FALSE, "dir1/a.txt", created, file_ms));
	/* the link: the target's type, size and times, isSymlink true */
	fx_expect(fx,
		  "fs/getMetadata",
		  "{'path':@{link}}",
		  metadata(fx, FALSE, TRUE, TRUE, "dir1/a.txt", created, file_ms));
	created = created_at(fx, "{'path':@{dir1}}");
	fx_expect(fx,
		  "fs/getMetadata",
		  "{'path':@{dir1}}",
		  metadata(fx, TRUE, FALSE, FALSE, "dir1", created, dir_ms));
	fx_expect(fx,
		  "fs/getMetadata",
		  "{'path':@{dlink}}",
		  metadata(fx, TRUE, FALSE, TRUE, "dir1", created, dir_ms));
	created = created_at(fx, "{'path':@{empty}}");
	fx_expect(fx,
		  "fs/getMetadata",
		  "{'path':@{empty}}",
		  metadata(fx, FALSE, TRUE, FALSE, "empty", created, file_ms));
	created = created_at(fx, "{'path':@{fifo}}");
	fx_expect(fx,
		  "fs/getMetadata",
		  "{'path':@{fifo}}",
		  metadata(fx, FALSE, FALSE, FALSE, "fifo", created, file_ms));
}

static void
test_get_metadata_errors(Fx *fx)
{
	disk_mkdir(fx, "dir1");
	disk_write(fx, "dir1/a.txt", "hello\n", -1);
	disk_symlink(fx, "dir1/a.txt", "link");
	disk_symlink(fx, "dir1", "dlink");
	disk_symlink(fx, "nowhere", "dangling");
	fx_fail(fx,
		"fs/getMetadata",
		"{'path':@{link},'followSymlinks':false}",
		-32600,
		"path contains a symbolic link");
	fx_fail(fx,
		"fs/getMetadata",
		"{'path':@{dlink/a.txt},'followSymlinks':false}",
		-32600,
		"path contains a symbolic link");
	fx_fail(fx, "fs/getMetadata", "{'path':@{dangling}}", -32004, ENOENT_TEXT);
	fx_fail(fx,
		"fs/getMetadata",
		"{'path':@{dangling},'followSymlinks':false}",
		-32600,
		"path contains a symbolic link");
	fx_fail(fx, "fs/getMetadata", "{'path':@{missing}}", -32004, ENOENT_TEXT);
	fx_fail(fx, "fs/getMetadata", "{'path':@{dir1/missing/x}}", -32004, ENOENT_TEXT);
	fx_fail(fx,
		"fs/getMetadata",
		"{'path':@{dir1/a.txt/x}}",
		-32603,
		"Not a directory (os error 20)");
}

/* 1. fs/canonicalize */

static void
test_canonicalize(Fx *fx)
{
	disk_mkdir(fx, "dir1/sub");
	disk_write(fx, "dir1/a.txt", "hello\n", -1);
	disk_symlink(fx, "dir1/a.txt", "link");
	disk_symlink(fx, "link", "link2");
	disk_symlink(fx, "dir1", "dlink");
	disk_symlink(fx, "../a.txt", "dir1/sub/up");
	disk_symlink(fx, "nowhere", "dangling");
	/* transcript id 7 */
	fx_expect(fx, "fs/canonicalize", "{'path':@{dir1/../link}}", "{'path':@{dir1/a.txt}}");
	fx_expect(fx, "fs/canonicalize", "{'path':@{link2}}", "{'path':@{dir1/a.txt}}");
	fx_expect(fx, "fs/canonicalize", "{'path':@{dlink/sub}}", "{'path':@{dir1/sub}}");
	fx_expect(fx, "fs/canonicalize", "{'path':@{dlink/sub/up}}", "{'path':@{dir1/a.txt}}");
	fx_expect(fx, "fs/canonicalize", "{'path':@{dir1/./sub/..}}", "{'path':@{dir1}}");
	fx_expect(fx, "fs/canonicalize", "{'path':@{}}", "{'path':@{}}");
	fx_expect(fx, "fs/canonicalize", "{'path':'file:///'}", "{'path':'file:///'}");
	/* output has no trailing slash */
	fx_expect(fx, "fs/canonicalize", "{'path':@{dir1/}}", "{'path':@{dir1}}");
	fx_expect(fx, "fs/canonicalize", "{'path':@{dir1/sub/.}}", "{'path':@{dir1/sub}}");
	fx_fail(fx, "fs/canonicalize", "{'path':@{missing}}", -32004, ENOENT_TEXT);
	fx_fail(fx, "fs/canonicalize", "{'path':@{dangling}}", -32004, ENOENT_TEXT);
	fx_fail(fx, "fs/canonicalize", "{'path':@{dlink/missing}}", -32004, ENOENT_TEXT);
}

/* 1. fs/readDirectory: B.12 id 7 */

static void
test_read_directory(Fx *fx)
{
	disk_mkdir(fx, "w/d/.hidden");
	disk_mkdir(fx, "w/d2");
	disk_write(fx, "w/.dotfile", "x", 1);
	disk_write(fx, "w/f", "file", -1);
	disk_write(fx, "w/d/.hidden/h", "h", 1);
	disk_symlink(fx, "d", "w/dlink");
	disk_symlink(fx, "f", "w/flink");
	disk_symlink(fx, "nowhere", "w/dangling");
	disk_fifo(fx, "w/fifo");
	disk_write(fx, "w/with space \xc3\xa9", "u", 1);
	fx_expect_directory(
	    fx,
	    "w",
	    "[{'fileName':'.dotfile','isDirectory':false,'isFile':true},"
	    "{'fileName':'d','isDirectory':true,'isFile':false},"
	    "{'fileName':'d2','isDirectory':true,'isFile':false},"
	    "{'fileName':'dlink','isDirectory':true,'isFile':false},"
	    "{'fileName':'f','isDirectory':false,'isFile':true},"
	    "{'fileName':'fifo','isDirectory':false,'isFile':false},"
	    "{'fileName':'flink','isDirectory':false,'isFile':true},"
	    "{'fileName':'with space \xc3\xa9','isDirectory':false,'isFile':true}]");
	fx_expect_directory(fx, "w/d2", "[]");
	fx_expect_directory(fx,
			    "w/dlink",
			    "[{'fileName':'.hidden','isDirectory':true,'isFile':false}]");
}

/* enough entries to need several getdents() calls */
static void
test_read_directory_many(Fx *fx)
{
	g_autoptr(GString) expected = g_string_new("[");

	disk_mkdir(fx, "many");
	for (guint i = 0; i < 600; i++) {
		g_autofree gchar *rel =
		    g_strdup_printf("many/entry-with-a-fairly-long-name-%04u", i);
		disk_write(fx, rel, "", 0);
		g_string_append_printf(expected,
				       "%s{'fileName':'entry-with-a-fairly-long-name-%04u',"
				       "'isDirectory':false,'isFile':true}",
				       i > 0 ? "," : "",
				       i);
	}
	g_string_append(expected, "]");
	fx_expect_directory(fx, "many", expected->str);
}

static void
test_read_directory_errors(Fx *fx)
{
	disk_write(fx, "new.bin", "x", 1);
	disk_symlink(fx, "nowhere", "dangling");
	fx_fail(fx,
		"fs/readDirectory",
		"{'path':@{new.bin}}",
		-32603,
		"Not a directory (os error 20)");
	fx_fail(fx, "fs/readDirectory", "{'path':@{missing}}", -32004, ENOENT_TEXT);
	fx_fail(fx, "fs/readDirectory", "{'path':@{dangling}}", -32004, ENOENT_TEXT);
}

/* 1. fs/walk: §9.1, transcripts id 15-17 and B.12 */

static void
make_walk_tree(Fx *fx)
{
	disk_mkdir(fx, "w/d/.hidden");
	disk_mkdir(fx, "w/d2");
	disk_write(fx, "w/.dotfile", "x", 1);
	disk_write(fx, "w/f", "file", -1);
	disk_write(fx, "w/d/.hidden/h", "h", 1);
	disk_symlink(fx, "d", "w/dlink");
	disk_symlink(fx, "f", "w/flink");
	disk_symlink(fx, "nowhere", "w/dangling");
	disk_fifo(fx, "w/fifo");
}

static void
test_walk(Fx *fx)
{
	make_walk_tree(fx);
	/* B.12 id 1 */
	fx_expect_walk(fx,
		       "w",
		       5,
		       50,
		       50,
		       FALSE,
		       -1,
		       "{'entries':[{'path':@{w/.dotfile},'kind':'file'},"
		       "{'path':@{w/d},'kind':'directory'},"
		       "{'path':@{w/d2},'kind':'directory'},"
		       "{'path':@{w/f},'kind':'file'},"
		       "{'path':@{w/d/.hidden},'kind':'directory'},"
		       "{'path':@{w/d/.hidden/h},'kind':'file'}],"
		       "'errors':[],'truncated':false}");
	/* B.12 id 2: a followed directory symlink is listed, d is not entered twice */
	fx_expect_walk(fx,
		       "w",
		       5,
		       50,
		       50,
		       TRUE,
		       TRUE,
		       "{'entries':[{'path':@{w/.dotfile},'kind':'file'},"
		       "{'path':@{w/d},'kind':'directory'},"
		       "{'path':@{w/d2},'kind':'directory'},"
		       "{'path':@{w/dlink},'kind':'directory'},"
		       "{'path':@{w/f},'kind':'file'},"
		       "{'path':@{w/d/.hidden},'kind':'directory'}],"
		       "'errors':[],'truncated':false}");
	fx_expect_walk(fx,
		       "w",
		       5,
		       50,
		       50,
		       TRUE,
		       FALSE,
		       "{'entries':[{'path':@{w/.dotfile},'kind':'file'},"
		       "{'path':@{w/d},'kind':'directory'},"
		       "{'path':@{w/d2},'kind':'directory'},"
		       "{'path':@{w/dlink},'kind':'directory'},"
		       "{'path':@{w/f},'kind':'file'},"
		       "{'path':@{w/d/.hidden},'kind':'directory'},"
		       "{'path':@{w/d/.hidden/h},'kind':'file'}],"
		       "'errors':[],'truncated':false}");
	/* hidden directories are listed, not descended */
	fx_expect_walk(fx,
		       "w",
		       5,
		       50,
		       50,
		       FALSE,
		       TRUE,
		       "{'entries':[{'path':@{w/.dotfile},'kind':'file'},"
		       "{'path':@{w/d},'kind':'directory'},"
		       "{'path':@{w/d2},'kind':'directory'},"
		       "{'path':@{w/f},'kind':'file'},"
		       "{'path':@{w/d/.hidden},'kind':'directory'}],"
		       "'errors':[],'truncated':false}");
}

static void
test_walk_depth(Fx *fx)
{
	make_walk_tree(fx);
	/* B.12 id 3: maxDepth 1 lists the children and grandchildren */
	fx_expect_walk(fx,
		       "w",
		       1,
		       50,
		       50,
		       FALSE,
		       -1,
		       "{'entries':[{'path':@{w/.dotfile},'kind':'file'},"
		       "{'path':@{w/d},'kind':'directory'},"
		       "{'path':@{w/d2},'kind':'directory'},"
		       "{'path':@{w/f},'kind':'file'},"
		       "{'path':@{w/d/.hidden},'kind':'directory'}],"
		       "'errors':[],'truncated':false}");
	/* maxDepth 0: the root is listed, nothing below */
	fx_expect_walk(fx,
		       "w",
		       0,
		       50,
		       50,
		       TRUE,
		       -1,
		       "{'entries':[{'path':@{w/.dotfile},'kind':'file'},"
		       "{'path':@{w/d},'kind':'directory'},"
		       "{'path':@{w/d2},'kind':'directory'},"
		       "{'path':@{w/dlink},'kind':'directory'},"
		       "{'path':@{w/f},'kind':'file'}],"
		       "'errors':[],'truncated':false}");
	/* the maximum is accepted */
	fx_expect_walk(fx,
		       "w/d2",
		       64,
		       10000,
		       50000,
		       FALSE,
		       -1,
		       "{'entries':[],'errors':[],'truncated':false}");
}

/* breadth-first, each directory sorted by name (bytes: upper case first) */
static void
test_walk_order(Fx *fx)
{
	disk_mkdir(fx, "t/a/a1");
	disk_mkdir(fx, "t/Z");
	disk_write(fx, "t/a/a2", "", 0);
	disk_write(fx, "t/Z/z1", "", 0);
	disk_write(fx, "t/a/a1/deep", "", 0);
	disk_write(fx, "t/B", "", 0);
	disk_write(fx, "t/b", "", 0);
	disk_write(fx, "t/a.txt", "", 0);
	fx_expect_walk(fx,
		       "t",
		       10,
		       100,
		       100,
		       FALSE,
		       -1,
		       "{'entries':[{'path':@{t/B},'kind':'file'},"
		       "{'path':@{t/Z},'kind':'directory'},"
		       "{'path':@{t/a},'kind':'directory'},"
		       "{'path':@{t/a.txt},'kind':'file'},"
		       "{'path':@{t/b},'kind':'file'},"
		       "{'path':@{t/Z/z1},'kind':'file'},"
		       "{'path':@{t/a/a1},'kind':'directory'},"
		       "{'path':@{t/a/a2},'kind':'file'},"
		       "{'path':@{t/a/a1/deep},'kind':'file'}],"
		       "'errors':[],'truncated':false}");
	/* maxEntries cuts the list */
	fx_expect_walk(fx,
		       "t",
		       10,
		       100,
		       3,
		       FALSE,
		       -1,
		       "{'entries':[{'path':@{t/B},'kind':'file'},"
		       "{'path':@{t/Z},'kind':'directory'},"
		       "{'path':@{t/a},'kind':'directory'}],"
		       "'errors':[],'truncated':true}");
	fx_expect_walk(fx,
		       "t",
		       10,
		       100,
		       1,
		       FALSE,
		       -1,
		       "{'entries':[{'path':@{t/B},'kind':'file'}],'errors':[],'truncated':true}");
	/* the root counts toward maxDirectories: 2 = the root and Z */
	fx_expect_walk(fx,
		       "t",
		       10,
		       2,
		       100,
		       FALSE,
		       -1,
		       "{'entries':[{'path':@{t/B},'kind':'file'},"
		       "{'path':@{t/Z},'kind':'directory'},"
		       "{'path':@{t/a},'kind':'directory'},"
		       "{'path':@{t/a.txt},'kind':'file'},"
		       "{'path':@{t/b},'kind':'file'},"
		       "{'path':@{t/Z/z1},'kind':'file'}],"
		       "'errors':[],'truncated':true}");
	/* B.12 id 4 */
	fx_expect_walk(fx,
		       "t",
		       10,
		       1,
		       100,
		       FALSE,
		       -1,
		       "{'entries':[{'path':@{t/B},'kind':'file'},"
		       "{'path':@{t/Z},'kind':'directory'},"
		       "{'path':@{t/a},'kind':'directory'},"
		       "{'path':@{t/a.txt},'kind':'file'},"
		       "{'path':@{t/b},'kind':'file'}],"
		       "'errors':[],'truncated':true}");
}

/* a symlink back to a visited directory is listed but not entered again */
static void
test_walk_symlink_loop(Fx *fx)
{
	disk_mkdir(fx, "r/sub");
	disk_symlink(fx, "..", "r/sub/up");
	disk_symlink(fx, "sub", "r/zlink");
	fx_expect_walk(fx,
		       "r",
		       20,
		       100,
		       100,
		       TRUE,
		       -1,
		       "{'entries':[{'path':@{r/sub},'kind':'directory'},"
		       "{'path':@{r/zlink},'kind':'directory'},"
		       "{'path':@{r/sub/up},'kind':'directory'}],"
		       "'errors':[],'truncated':false}");
}

/* a followed link to a directory outside the root is listed and walked under its own path */
static void
test_walk_symlink_outside(Fx *fx)
{
	disk_mkdir(fx, "outside/inner");
	disk_write(fx, "outside/x", "x", 1);
	disk_mkdir(fx, "w");
	disk_symlink(fx, "../outside", "w/out");
	fx_expect_walk(fx,
		       "w",
		       5,
		       50,
		       50,
		       TRUE,
		       -1,
		       "{'entries':[{'path':@{w/out},'kind':'directory'},"
		       "{'path':@{w/out/inner},'kind':'directory'},"
		       "{'path':@{w/out/x},'kind':'file'}],"
		       "'errors':[],'truncated':false}");
	fx_expect_walk(fx,
		       "w",
		       5,
		       50,
		       50,
		       FALSE,
		       -1,
		       "{'entries':[],'errors':[],'truncated':false}");
}

/* a name that is not UTF-8 never makes a reply invalid, nor hides the other entries */
static void
test_non_utf8_name(Fx *fx)
{
	JsonNode *result;
	JsonArray *entries;
	gboolean seen_ok = FALSE;

	disk_mkdir(fx, "w");
	disk_write(fx, "w/ok", "", 0);
	disk_write(fx, "w/bad-\xff\xfe", "", 0);
	/* conn_receive() checks every reply is valid UTF-8 JSON */
	result = fx_ok(fx, "fs/readDirectory", "{'path':@{w}}");
	entries = json_node_get_array(esd_test_json_get(result, "entries"));
	for (guint i = 0; i < json_array_get_length(entries); i++) {
		JsonNode *entry = json_array_get_element(entries, i);
		if (g_strcmp0(esd_test_json_get_string(entry, "fileName"), "ok") == 0)
			seen_ok = TRUE;
	}
	g_assert_true(seen_ok);
	result = fx_ok(fx,
		       "fs/walk",
		       "{'path':@{w},'options':{'maxDepth':1,'maxDirectories':5,'maxEntries':5,"
		       "'followDirectorySymlinks':false}}");
	g_assert_nonnull(esd_test_json_get(result, "entries"));
	fx_expect(fx, "fs/readFile", "{'path':@{w/bad-%FF%FE}}", "{'dataBase64':''}");
}

static void
test_walk_errors(Fx *fx)
{
	const gchar *zero = "filesystem walk limits must be greater than zero";
	const gchar *max =
	    "filesystem walk limits exceed maximums: depth=64, directories=10000, entries=50000";
	struct {
		guint depth;
		guint dirs;
		guint entries;
		const gchar *message;
	} rows[] = {
	    {5, 0, 50, NULL},
	    {5, 50, 0, NULL},
	    {65, 10, 50, NULL},
	    {999, 1, 1, NULL},
	    {5, 10001, 50, NULL},
	    {5, 10, 50001, NULL},
	};

	disk_mkdir(fx, "w");
	disk_write(fx, "file", "x", 1);
	rows[0].message = rows[1].message = zero;
	for (guint i = 2; i < G_N_ELEMENTS(rows); i++)
		rows[i].message = max;
	for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
		g_autofree gchar *params =
		    walk_params("w", rows[i].depth, rows[i].dirs, rows[i].entries, FALSE, -1);
		fx_fail(fx, "fs/walk", params, -32600, rows[i].message);
	}
	/* a non-directory root gives nothing; a missing one is not found */
	fx_expect_walk(fx,
		       "file",
		       5,
		       50,
		       50,
		       FALSE,
		       -1,
		       "{'entries':[],'errors':[],'truncated':false}");
	{
		g_autofree gchar *params = walk_params("missing", 5, 50, 50, FALSE, -1);
		fx_fail(fx, "fs/walk", params, -32004, ENOENT_TEXT);
	}
	fx_fail(fx, "fs/walk", "{'path':@{w}}", -32602, "missing field `options`");
	fx_fail(fx,
		"fs/walk",
		"{'path':@{w},'options':{'maxDirectories':1,'maxEntries':1,"
		"'followDirectorySymlinks':false}}",
		-32602,
		"missing field `maxDepth`");
	fx_fail(fx,
		"fs/walk",
		"{'path':@{w},'options':{'maxDepth':1,'maxDirectories':1,'maxEntries':1}}",
		-32602,
		"missing field `followDirectorySymlinks`");
	fx_fail(fx,
		"fs/walk",
		"{'path':@{w},'options':{'maxDepth':-1,'maxDirectories':1,'maxEntries':1,"
		"'followDirectorySymlinks':false}}",
		-32602,
		"invalid *");
}

/* unreadable subdirectories are reported and the walk goes on */
static void
test_walk_unreadable(Fx *fx)
{
	disk_mkdir(fx, "w/locked");
	disk_mkdir(fx, "w/open");
	disk_write(fx, "w/locked/secret", "s", 1);
	disk_write(fx, "w/open/f", "f", 1);
	g_assert_cmpint(g_chmod(fx_path(fx, "w/locked"), 0), ==, 0);
	fx_expect_walk(
	    fx,
	    "w",
	    5,
	    50,
	    50,
	    FALSE,
	    -1,
	    "{'entries':[{'path':@{w/locked},'kind':'directory'},"
	    "{'path':@{w/open},'kind':'directory'},"
	    "{'path':@{w/open/f},'kind':'file'}],"
	    "'errors':[{'path':@{w/locked},'message':'Permission denied (os error 13)'}],"
	    "'truncated':false}");
}

/* 1. fs/remove */

static void
test_remove(Fx *fx)
{
	disk_write(fx, "file", "x", 1);
	fx_expect(fx, "fs/remove", "{'path':@{file}}", "{}");
	disk_assert_missing(fx, "file");
	disk_mkdir(fx, "x/y/z");
	disk_write(fx, "x/y/f", "f", 1);
	fx_expect(fx, "fs/remove", "{'path':@{x}}", "{}");
	disk_assert_missing(fx, "x");
	/* force (the default) makes a missing path fine */
	fx_expect(fx, "fs/remove", "{'path':@{missing}}", "{}");
	fx_expect(fx, "fs/remove", "{'path':@{missing},'force':true}", "{}");
	fx_fail(fx, "fs/remove", "{'path':@{missing},'force':false}", -32004, ENOENT_TEXT);
	disk_mkdir(fx, "full/sub");
	fx_fail(fx,
		"fs/remove",
		"{'path':@{full},'recursive':false}",
		-32603,
		"Directory not empty (os error 39)");
	disk_assert_type(fx, "full/sub", S_IFDIR);
	fx_expect(fx, "fs/remove", "{'path':@{full/sub},'recursive':false}", "{}");
	disk_assert_missing(fx, "full/sub");
	disk_write(fx, "plain", "p", 1);
	fx_expect(fx, "fs/remove", "{'path':@{plain},'recursive':false,'force':false}", "{}");
	disk_fifo(fx, "fifo");
	fx_expect(fx, "fs/remove", "{'path':@{fifo}}", "{}");
	g_assert_cmpstr(disk_list(fx, ""), ==, "full");
}

/* removing a link never touches what it points to */
static void
test_remove_symlinks(Fx *fx)
{
	disk_mkdir(fx, "target/sub");
	disk_write(fx, "target/keep", "keep", -1);
	disk_write(fx, "target/sub/keep2", "keep2", -1);
	disk_symlink(fx, "target", "dlink");
	disk_symlink(fx, "target/keep", "flink");
	disk_symlink(fx, "nowhere", "dangling");
	disk_mkdir(fx, "tree");
	disk_symlink(fx, "../target", "tree/outside");
	fx_expect(fx, "fs/remove", "{'path':@{dlink}}", "{}");
	disk_assert_missing(fx, "dlink");
	fx_expect(fx, "fs/remove", "{'path':@{flink}}", "{}");
	disk_assert_missing(fx, "flink");
	fx_expect(fx, "fs/remove", "{'path':@{dangling},'force':false}", "{}");
	disk_assert_missing(fx, "dangling");
	fx_expect(fx, "fs/remove", "{'path':@{tree}}", "{}");
	disk_assert_missing(fx, "tree");
	disk_assert_content(fx, "target/keep", "keep", -1);
	disk_assert_content(fx, "target/sub/keep2", "keep2", -1);
	g_assert_cmpstr(disk_list(fx, ""), ==, "target");
}

/* 1. fs/copy */

static void
test_copy_file(Fx *fx)
{
	guchar data[3000];

	for (guint i = 0; i < sizeof(data); i++)
		data[i] = (guchar)(i * 7 + 3);
	disk_write(fx, "src.bin", (const gchar *)data, sizeof(data));
	fx_expect(fx,
		  "fs/copy",
		  "{'sourcePath':@{src.bin},'destinationPath':@{dst.bin},'recursive':false}",
		  "{}");
	disk_assert_content(fx, "dst.bin", (const gchar *)data, sizeof(data));
	disk_assert_content(fx, "src.bin", (const gchar *)data, sizeof(data));
	/* over an existing, longer file */
	disk_write(fx, "short", "ab", -1);
	disk_write(fx, "long", "0123456789", -1);
	fx_expect(fx,
		  "fs/copy",
		  "{'sourcePath':@{short},'destinationPath':@{long},'recursive':true}",
		  "{}");
	disk_assert_content(fx, "long", "ab", -1);
	g_assert_cmpstr(disk_list(fx, ""), ==, "dst.bin,long,short,src.bin");
}

static void
test_copy_directory(Fx *fx)
{
	g_autofree gchar *link_target = NULL;

	disk_mkdir(fx, "dir1/sub/empty");
	disk_write(fx, "dir1/a.txt", "hello\n", -1);
	disk_write(fx, "dir1/sub/b.bin", "\x00\xff", 2);
	disk_symlink(fx, "a.txt", "dir1/rel");
	fx_expect(fx,
		  "fs/copy",
		  "{'sourcePath':@{dir1},'destinationPath':@{dir2},'recursive':true}",
		  "{}");
	g_assert_cmpstr(disk_list(fx, "dir2"), ==, "a.txt,rel,sub");
	g_assert_cmpstr(disk_list(fx, "dir2/sub"), ==, "b.bin,empty");
	g_assert_cmpstr(disk_list(fx, "dir2/sub/empty"), ==, "");
	disk_assert_content(fx, "dir2/a.txt", "hello\n", -1);
	disk_assert_content(fx, "dir2/sub/b.bin", "\x00\xff", 2);
	/* symlinks are copied as symlinks */
	disk_assert_type(fx, "dir2/rel", S_IFLNK);
	link_target = g_file_read_link(fx_path(fx, "dir2/rel"), NULL);
	g_assert_cmpstr(link_target, ==, "a.txt");
	g_assert_cmpstr(disk_list(fx, "dir1"), ==, "a.txt,rel,sub");
	/* a sibling whose name starts with the source's is not a descendant */
	fx_expect(fx,
		  "fs/copy",
		  "{'sourcePath':@{dir1},'destinationPath':@{dir10},'recursive':true}",
		  "{}");
	disk_assert_content(fx, "dir10/sub/b.bin", "\x00\xff", 2);
}

/* a recursive copy onto an existing directory merges and overwrites */
static void
test_copy_merge(Fx *fx)
{
	disk_mkdir(fx, "src/sub");
	disk_write(fx, "src/a.txt", "new a", -1);
	disk_write(fx, "src/sub/s", "new s", -1);
	disk_mkdir(fx, "dst/sub");
	disk_write(fx, "dst/a.txt", "old a, longer", -1);
	disk_write(fx, "dst/keep", "keep", -1);
	disk_write(fx, "dst/sub/keep2", "keep2", -1);
	fx_expect(fx,
		  "fs/copy",
		  "{'sourcePath':@{src},'destinationPath':@{dst},'recursive':true}",
		  "{}");
	disk_assert_content(fx, "dst/a.txt", "new a", -1);
	disk_assert_content(fx, "dst/keep", "keep", -1);
	disk_assert_content(fx, "dst/sub/s", "new s", -1);
	disk_assert_content(fx, "dst/sub/keep2", "keep2", -1);
	g_assert_cmpstr(disk_list(fx, "dst"), ==, "a.txt,keep,sub");
}

static void
test_copy_errors(Fx *fx)
{
	disk_mkdir(fx, "dir1/sub");
	disk_write(fx, "dir1/a.txt", "hello\n", -1);
	disk_mkdir(fx, "existing");
	disk_write(fx, "existing/inside", "i", 1);
	disk_fifo(fx, "fifo");
	fx_fail(fx,
		"fs/copy",
		"{'sourcePath':@{dir1},'destinationPath':@{dir2},'recursive':false}",
		-32600,
		"fs/copy requires recursive: true when sourcePath is a directory");
	disk_assert_missing(fx, "dir2");
	fx_fail(fx,
		"fs/copy",
		"{'sourcePath':@{dir1},'destinationPath':@{dir1/sub/in},'recursive':true}",
		-32600,
		"fs/copy cannot copy a directory to itself or one of its descendants");
	fx_fail(fx,
		"fs/copy",
		"{'sourcePath':@{dir1},'destinationPath':@{dir1},'recursive':true}",
		-32600,
		"fs/copy cannot copy a directory to itself or one of its descendants");
	disk_assert_missing(fx, "dir1/sub/in");
	fx_fail(fx,
		"fs/copy",
		"{'sourcePath':@{fifo},'destinationPath':@{fifo2},'recursive':false}",
		-32600,
		"fs/copy only supports regular files, directories, and symlinks");
	fx_fail(fx,
		"fs/copy",
		"{'sourcePath':'file:///dev/null','destinationPath':@{null2},'recursive':false}",
		-32600,
		"fs/copy only supports regular files, directories, and symlinks");
	fx_fail(fx,
		"fs/copy",
		"{'sourcePath':@{dir1/a.txt},'destinationPath':@{existing},'recursive':false}",
		-32603,
		"Is a directory*");
	fx_fail(fx,
		"fs/copy",
		"{'sourcePath':@{missing},'destinationPath':@{x},'recursive':false}",
		-32004,
		ENOENT_TEXT);
	fx_fail(fx,
		"fs/copy",
		"{'sourcePath':@{dir1/a.txt},'destinationPath':@{nodir/x},'recursive':false}",
		-32004,
		ENOENT_TEXT);
	fx_fail(fx,
		"fs/copy",
		"{'sourcePath':@{dir1/a.txt},'destinationPath':@{x}}",
		-32602,
		"missing field `recursive`");
	/* a directory onto an existing file */
	disk_write(fx, "file", "keep", -1);
	fx_fail(fx,
		"fs/copy",
		"{'sourcePath':@{dir1},'destinationPath':@{file},'recursive':true}",
		-32603,
		"*");
	disk_assert_content(fx, "file", "keep", -1);
	g_assert_cmpstr(disk_list(fx, ""), ==, "dir1,existing,fifo,file");
	g_assert_cmpstr(disk_list(fx, "existing"), ==, "inside");
	g_assert_cmpstr(disk_list(fx, "dir1/sub"), ==, "");
}

/* the descendant check sees through symlinks to the source */
static void
test_copy_into_itself_via_link(Fx *fx)
{
	disk_mkdir(fx, "dir1/sub");
	disk_write(fx, "dir1/a.txt", "hello\n", -1);
	disk_symlink(fx, "dir1", "alias");
	disk_symlink(fx, "../dir1/sub", "dir1/sub-alias");
	fx_fail(fx,
		"fs/copy",
		"{'sourcePath':@{dir1},'destinationPath':@{alias/through-alias},'recursive':true}",
		-32600,
		"fs/copy cannot copy a directory to itself or one of its descendants");
	fx_fail(
	    fx,
	    "fs/copy",
	    "{'sourcePath':@{dir1},'destinationPath':@{dir1/sub-alias/deeper/x},'recursive':true}",
	    -32600,
	    "fs/copy cannot copy a directory to itself or one of its descendants");
	g_assert_cmpstr(disk_list(fx, "dir1"), ==, "a.txt,sub,sub-alias");
	g_assert_cmpstr(disk_list(fx, "dir1/sub"), ==, "");
}

/* a symlink source is copied as a link, dangling or not */
static void
test_copy_symlink_source(Fx *fx)
{
	g_autofree gchar *target1 = NULL;
	g_autofree gchar *target2 = NULL;

	disk_mkdir(fx, "dir1");
	disk_write(fx, "dir1/a.txt", "hello\n", -1);
	disk_symlink(fx, "dir1/a.txt", "link");
	disk_symlink(fx, "nowhere", "dangling");
	fx_expect(fx,
		  "fs/copy",
		  "{'sourcePath':@{link},'destinationPath':@{link2},'recursive':false}",
		  "{}");
	fx_expect(fx,
		  "fs/copy",
		  "{'sourcePath':@{dangling},'destinationPath':@{dangling2},'recursive':false}",
		  "{}");
	disk_assert_type(fx, "link2", S_IFLNK);
	disk_assert_type(fx, "dangling2", S_IFLNK);
	target1 = g_file_read_link(fx_path(fx, "link2"), NULL);
	target2 = g_file_read_link(fx_path(fx, "dangling2"), NULL);
	g_assert_cmpstr(target1, ==, "dir1/a.txt");
	g_assert_cmpstr(target2, ==, "nowhere");
	disk_assert_content(fx, "dir1/a.txt", "hello\n", -1);
}

/* a FIFO inside a copied tree is not opened (that would block): upstream skips it */
static void
test_copy_special_children(Fx *fx)
{
	gint64 start = g_get_monotonic_time();

	disk_mkdir(fx, "src/sub");
	disk_write(fx, "src/note.txt", "hello", -1);
	disk_fifo(fx, "src/named-pipe");
	disk_fifo(fx, "src/sub/pipe2");
	fx_expect(fx,
		  "fs/copy",
		  "{'sourcePath':@{src},'destinationPath':@{copied},'recursive':true}",
		  "{}");
	g_assert_cmpint(g_get_monotonic_time() - start, <, 2 * G_USEC_PER_SEC);
	disk_assert_content(fx, "copied/note.txt", "hello", -1);
	g_assert_cmpstr(disk_list(fx, "copied"), ==, "note.txt,sub");
	g_assert_cmpstr(disk_list(fx, "copied/sub"), ==, "");
}

/* copying a file onto itself, directly or through a link, loses nothing */
static void
test_copy_onto_itself(Fx *fx)
{
	const gchar *rows[] = {
	    "{'sourcePath':@{f},'destinationPath':@{f},'recursive':false}",
	    "{'sourcePath':@{f},'destinationPath':@{flink},'recursive':false}",
	    "{'sourcePath':@{flink},'destinationPath':@{f},'recursive':false}",
	    "{'sourcePath':@{f},'destinationPath':@{hard},'recursive':false}",
	};

	disk_write(fx, "f", "precious content", -1);
	disk_symlink(fx, "f", "flink");
	g_assert_cmpint(link(fx_path(fx, "f"), fx_path(fx, "hard")), ==, 0);
	for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
		/* refused (-32600/-32603) or done, as long as the content survives */
		JsonNode *reply = fx_call(fx, "fs/copy", rows[i]);
		if (esd_test_json_get(reply, "result") == NULL) {
			gint64 code = esd_test_json_get_int(reply, "error.code");
			if (code != -32600 && code != -32603) {
				g_autofree gchar *text = esd_test_json_to_string(reply);
				g_error("%s: %s", fx_json(fx, rows[i]), text);
			}
		}
		disk_assert_type(fx, "f", S_IFREG);
		disk_assert_content(fx, "f", "precious content", -1);
		disk_assert_type(fx, "flink", S_IFLNK);
		disk_assert_content(fx, "hard", "precious content", -1);
	}
}

/* 2. errors common to every method */

typedef struct {
	const gchar *method;
	const gchar *params; /* `URI` stands for the URI under test */
} MethodRow;

static const MethodRow path_methods[] = {
    {"fs/readFile", "{'path':URI}"},
    {"fs/writeFile", "{'path':URI,'dataBase64':''}"},
    {"fs/createDirectory", "{'path':URI}"},
    {"fs/getMetadata", "{'path':URI}"},
    {"fs/canonicalize", "{'path':URI}"},
    {"fs/readDirectory", "{'path':URI}"},
    {"fs/walk",
     "{'path':URI,'options':{'maxDepth':1,'maxDirectories':1,'maxEntries':1,"
     "'followDirectorySymlinks':false}}"},
    {"fs/remove", "{'path':URI}"},
    {"fs/copy", "{'sourcePath':URI,'destinationPath':@{copy-dst},'recursive':true}"},
    {"fs/copy", "{'sourcePath':@{f},'destinationPath':URI,'recursive':true}"},
    {"fs/open", "{'handleId':'h','path':URI}"},
    {"fs/open", "{'handleId':'h','path':URI,'mode':'replace'}"},
    {"fs/watchMissing", "{'watchId':1,'missing':[URI]}"},
};

static const gchar *
row_params(Fx *fx, const MethodRow *row, const gchar *uri)
{
	g_auto(GStrv) parts = g_strsplit(row->params, "URI", 2);
	g_assert_nonnull(parts[1]);
	return fx_keep(fx, g_strconcat(parts[0], uri, parts[1], NULL));
}

static void
assert_uri_error(Fx *fx, const gchar *uri, gint64 code, const gchar *message)
{
	disk_write(fx, "f", "f", 1);
	for (guint i = 0; i < G_N_ELEMENTS(path_methods); i++)
		fx_fail(fx,
			path_methods[i].method,
			row_params(fx, &path_methods[i], uri),
			code,
			message);
	g_assert_cmpstr(disk_list(fx, ""), ==, "f");
}

static void
test_uri_relative(Fx *fx)
{
	const gchar *message = "invalid URI: relative URL without a base";
	assert_uri_error(fx, "'%{f}'", -32602, message);
	assert_uri_error(fx, "'relative/x'", -32602, message);
	assert_uri_error(fx, "''", -32602, message);
}

static void
test_uri_scheme(Fx *fx)
{
	assert_uri_error(fx, "'http://x/y'", -32602, "unsupported path URI scheme `http`");
	assert_uri_error(fx,
			 "'https://example.com/x'",
			 -32602,
			 "unsupported path URI scheme `https`");
}

static void
test_uri_host(Fx *fx)
{
	assert_uri_error(fx, "'file://host/x'", -32600, "'file://host/x' is invalid on 'linux'");
}

/* the URL parser normalises `.`/`..` (plain or escaped) and decodes escapes */
static void
test_uri_normalised(Fx *fx)
{
	disk_mkdir(fx, "sub");
	disk_write(fx, "f", "top", -1);
	disk_write(fx, "a.txt", "dot", -1);
	disk_write(fx, "my file", "space", -1);
	fx_expect(fx, "fs/readFile", "{'path':@{sub/%2e%2e/f}}", "{'dataBase64':'dG9w'}");
	fx_expect(fx, "fs/readFile", "{'path':@{sub/%2E%2E/f}}", "{'dataBase64':'dG9w'}");
	fx_expect(fx, "fs/readFile", "{'path':@{sub/../f}}", "{'dataBase64':'dG9w'}");
	fx_expect(fx, "fs/readFile", "{'path':@{sub/./../sub/%2e/../f}}", "{'dataBase64':'dG9w'}");
	/* lexical: the missing directory is never looked up */
	fx_expect(fx, "fs/readFile", "{'path':@{missing/../f}}", "{'dataBase64':'dG9w'}");
	fx_expect(fx, "fs/readFile", "{'path':@{a%2Etxt}}", "{'dataBase64':'ZG90'}");
	fx_expect(fx, "fs/readFile", "{'path':@{my%20file}}", "{'dataBase64':'c3BhY2U='}");
	fx_expect(fx, "fs/writeFile", "{'path':@{sub/%2e%2e/w%2Etxt},'dataBase64':'dw=='}", "{}");
	disk_assert_content(fx, "w.txt", "w", -1);
	fx_expect(fx, "fs/createDirectory", "{'path':@{sub/%2e%2e/made/.}}", "{}");
	disk_assert_type(fx, "made", S_IFDIR);
	fx_expect(fx, "fs/canonicalize", "{'path':@{sub/%2e%2e/made}}", "{'path':@{made}}");
	g_assert_cmpstr(disk_list(fx, ""), ==, "a.txt,f,made,my file,sub,w.txt");
	g_assert_cmpstr(disk_list(fx, "sub"), ==, "");
}

static const gchar *const all_methods[] = {
    "fs/readFile",
    "fs/writeFile",
    "fs/createDirectory",
    "fs/getMetadata",
    "fs/canonicalize",
    "fs/readDirectory",
    "fs/walk",
    "fs/remove",
    "fs/copy",
    "fs/open",
    "fs/readBlock",
    "fs/writeBlock",
    "fs/close",
    "fs/watchMissing",
};

/* output URIs escape what a URL must not hold literally (§6.1) */
static void
test_uri_output(Fx *fx)
{
	disk_mkdir(fx, "e");
	disk_write(fx, "e/my file", "", 0);
	disk_write(fx, "e/a#b?c", "", 0);
	disk_write(fx, "e/100%", "", 0);
	disk_write(fx, "e/\xc3\xa9", "", 0);
	fx_expect(fx, "fs/canonicalize", "{'path':@{e/my%20file}}", "{'path':@{e/my%20file}}");
	fx_expect(fx, "fs/canonicalize", "{'path':@{e/a%23b%3Fc}}", "{'path':@{e/a%23b%3Fc}}");
	fx_expect(fx, "fs/canonicalize", "{'path':@{e/100%25}}", "{'path':@{e/100%25}}");
	fx_expect(fx, "fs/canonicalize", "{'path':@{e/%C3%A9}}", "{'path':@{e/%C3%A9}}");
	fx_expect_walk(fx,
		       "e",
		       1,
		       10,
		       10,
		       FALSE,
		       -1,
		       "{'entries':[{'path':@{e/100%25},'kind':'file'},"
		       "{'path':@{e/a%23b%3Fc},'kind':'file'},"
		       "{'path':@{e/my%20file},'kind':'file'},"
		       "{'path':@{e/%C3%A9},'kind':'file'}],"
		       "'errors':[],'truncated':false}");
	fx_expect_directory(fx,
			    "e",
			    "[{'fileName':'100%','isDirectory':false,'isFile':true},"
			    "{'fileName':'a#b?c','isDirectory':false,'isFile':true},"
			    "{'fileName':'my file','isDirectory':false,'isFile':true},"
			    "{'fileName':'\xc3\xa9','isDirectory':false,'isFile':true}]");
}

/* every fs method is gated by the handshake (§5.1, family "filesystem") */
static void
test_gating(Fx *fx)
{
	g_autoptr(EsdTestWsClient) client =
	    esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
	Conn *conn = conn_new(ESD_TEST_PEER(client), client);

	for (guint i = 0; i < G_N_ELEMENTS(all_methods); i++)
		conn_fail(fx,
			  conn,
			  all_methods[i],
			  "{'path':@{x},'dataBase64':''}",
			  -32600,
			  "client must call initialize before using filesystem methods");
	conn_ok(fx, conn, "initialize", "{'clientName':'gating'}");
	for (guint i = 0; i < G_N_ELEMENTS(all_methods); i++)
		conn_fail(fx,
			  conn,
			  all_methods[i],
			  "{'path':@{x},'dataBase64':''}",
			  -32600,
			  "client must send initialized before using filesystem methods");
	disk_assert_missing(fx, "x");
	esd_test_ws_client_close(client);
	conn_free(conn);
}

/* a NUL byte never reaches a system call as a truncated path */
static void
test_uri_nul(Fx *fx)
{
	const gchar *bad[] = {
	    "{'path':@{a%00b},'dataBase64':'YQ=='}",
	    "{'path':@{a%00},'dataBase64':'YQ=='}",
	    "{'path':@{%00/x},'dataBase64':'YQ=='}",
	};

	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		gint64 code = fx_fail_any(fx, "fs/writeFile", bad[i]);
		if (code != -32600 && code != -32602)
			g_error("%s: code %" G_GINT64_FORMAT ", expected -32600 or -32602",
				bad[i],
				code);
	}
	g_assert_cmpstr(disk_list(fx, ""), ==, "");
	disk_write(fx, "a", "a", 1);
	{
		gint64 code = fx_fail_any(fx, "fs/readFile", "{'path':@{a%00b}}");
		g_assert_true(code == -32600 || code == -32602);
		code = fx_fail_any(fx, "fs/remove", "{'path':@{a%00b}}");
		g_assert_true(code == -32600 || code == -32602);
		code = fx_fail_any(fx, "fs/createDirectory", "{'path':@{a%00b}}");
		g_assert_true(code == -32600 || code == -32602);
	}
	g_assert_cmpstr(disk_list(fx, ""), ==, "a");
}

/* §3: absent or null params of a method taking a struct */
static void
test_missing_params(Fx *fx)
{
	for (guint i = 0; i < G_N_ELEMENTS(all_methods); i++) {
		fx_fail(fx, all_methods[i], NULL, -32602, "invalid type: null, expected struct *");
		fx_fail(fx,
			all_methods[i],
			"null",
			-32602,
			"invalid type: null, expected struct *");
		fx_fail(fx, all_methods[i], "[]", -32602, "invalid *");
		fx_fail(fx, all_methods[i], "{}", -32602, "missing field `*`");
	}
}

/* 2. the sandbox member (§6.4) */

#define RESTRICTED                                                                                 \
	"{'permissions':{'type':'managed','file_system':{'type':'restricted','entries':["          \
	"{'path':{'type':'special','value':{'kind':'root'}},'access':'read'},"                     \
	"{'path':{'type':'path','path':@{}},'access':'write'}]},'network':'restricted'},"          \
	"'windowsSandboxLevel':'disabled'}"

static void
conn_fail_sandbox(Fx *fx, Conn *conn, const gchar *method, const gchar *params)
{
	JsonNode *reply = conn_call(fx, conn, method, params);
	JsonNode *message = esd_test_json_get(reply, "error.message");
	g_autofree gchar *text = esd_test_json_to_string(reply);

	if (esd_test_json_get(reply, "error") == NULL || message == NULL ||
	    !JSON_NODE_HOLDS_VALUE(message) || json_node_get_value_type(message) != G_TYPE_STRING ||
	    json_node_get_string(message)[0] == '\0' ||
	    json_object_get_size(json_node_get_object(esd_test_json_get(reply, "error"))) != 3)
		g_error("%s %s: expected a sandboxUnavailable error, got %s",
			method,
			fx_json(fx, params),
			text);
	esd_assert_json_node_eq(esd_test_json_get(reply, "error.code"), "-32602");
	esd_assert_json_node_eq(esd_test_json_get(reply, "error.data"),
				"{\"kind\":\"sandboxUnavailable\"}");
}

/*
 * a restricted profile runs in the sandboxed helper (test-fs-sandbox.c has
 * the details): here, with the scratch directory writable, every method gives
 * what a direct run gives; where bwrap cannot make a sandbox, every one is
 * refused with sandboxUnavailable and nothing happens
 */
static void
test_sandbox_restricted(Fx *fx)
{
	const MethodRow rows[] = {
	    {"fs/writeFile", "{'path':@{new},'dataBase64':'YQ==','sandbox':" RESTRICTED "}"},
	    {"fs/writeFile", "{'path':@{f},'dataBase64':'YQ==','sandbox':" RESTRICTED "}"},
	    {"fs/createDirectory", "{'path':@{newdir},'sandbox':" RESTRICTED "}"},
	    {"fs/copy",
	     "{'sourcePath':@{f},'destinationPath':@{copy},'recursive':false,'sandbox':" RESTRICTED
	     "}"},
	    {"fs/readFile", "{'path':@{f},'sandbox':" RESTRICTED "}"},
	    {"fs/getMetadata", "{'path':@{f},'sandbox':" RESTRICTED "}"},
	    {"fs/canonicalize", "{'path':@{f},'sandbox':" RESTRICTED "}"},
	    {"fs/readDirectory", "{'path':@{d},'sandbox':" RESTRICTED "}"},
	    {"fs/walk",
	     "{'path':@{d},'options':{'maxDepth':1,'maxDirectories':1,'maxEntries':1,"
	     "'followDirectorySymlinks':false},'sandbox':" RESTRICTED "}"},
	    {"fs/open", "{'handleId':'r','path':@{f},'sandbox':" RESTRICTED "}"},
	    {"fs/open",
	     "{'handleId':'w','path':@{new2},'mode':'replace','sandbox':" RESTRICTED "}"},
	    {"fs/remove", "{'path':@{d},'sandbox':" RESTRICTED "}"},
	};
	JsonNode *probe;

	disk_write(fx, "f", "old", -1);
	disk_mkdir(fx, "d/sub");
	probe = fx_call(fx, "fs/getMetadata", "{'path':@{f},'sandbox':" RESTRICTED "}");
	if (esd_test_json_get(probe, "error.data") != NULL) {
		for (guint i = 0; i < G_N_ELEMENTS(rows); i++)
			conn_fail_sandbox(fx, fx->conn, rows[i].method, rows[i].params);
		disk_assert_content(fx, "f", "old", -1);
		g_assert_cmpstr(disk_list(fx, ""), ==, "d,f");
		g_assert_cmpstr(disk_list(fx, "d"), ==, "sub");
		fx_fail(fx,
			"fs/readBlock",
			"{'handleId':'r','offset':0,'len':1}",
			-32004,
			"unknown file handle `r`");
	} else {
		g_assert_nonnull(esd_test_json_get(probe, "result"));
		for (guint i = 0; i < G_N_ELEMENTS(rows); i++)
			fx_ok(fx, rows[i].method, rows[i].params);
		disk_assert_content(fx, "new", "a", -1);
		disk_assert_content(fx, "f", "a", -1);
		disk_assert_content(fx, "copy", "a", -1);
		fx_expect(fx, "fs/writeBlock", "{'handleId':'w','offset':0,'chunk':'YQ=='}", "{}");
		fx_expect(fx, "fs/close", "{'handleId':'w'}", "{}");
		fx_expect(fx,
			  "fs/readBlock",
			  "{'handleId':'r','offset':0,'len':1}",
			  "{'chunk':'YQ==','eof':false}");
		fx_expect(fx, "fs/close", "{'handleId':'r'}", "{}");
		g_assert_cmpstr(disk_list(fx, ""), ==, "copy,f,new,new2,newdir");
	}
	/* mxc is not available on Linux */
	conn_fail_sandbox(
	    fx,
	    fx->conn,
	    "fs/writeFile",
	    "{'path':@{mxc},'dataBase64':'YQ==','sandbox':{'permissions':{'type':'disabled'},"
	    "'windowsSandboxLevel':'mxc'}}");
	disk_assert_missing(fx, "mxc");
}

/* no outer sandbox: disabled, external, managed unrestricted run directly */
static void
test_sandbox_direct(Fx *fx)
{
	const gchar *contexts[] = {
	    "{'permissions':{'type':'disabled'},'windowsSandboxLevel':'disabled'}",
	    "{'permissions':{'type':'external','network':'restricted'},'windowsSandboxLevel':'"
	    "disabled'}",
	    "{'permissions':{'type':'managed','file_system':{'type':'unrestricted'},'network':'"
	    "enabled'},"
	    "'windowsSandboxLevel':'disabled','cwd':@{},'useLegacyLandlock':false}",
	};

	for (guint i = 0; i < G_N_ELEMENTS(contexts); i++) {
		g_autofree gchar *write =
		    g_strdup_printf("{'path':@{f%u},'dataBase64':'YQ==','sandbox':%s}",
				    i,
				    contexts[i]);
		g_autofree gchar *read =
		    g_strdup_printf("{'path':@{f%u},'sandbox':%s}", i, contexts[i]);
		g_autofree gchar *mkdir_params =
		    g_strdup_printf("{'path':@{d%u/x},'sandbox':%s}", i, contexts[i]);
		g_autofree gchar *name = g_strdup_printf("f%u", i);

		fx_expect(fx, "fs/writeFile", write, "{}");
		disk_assert_content(fx, name, "a", -1);
		fx_expect(fx, "fs/readFile", read, "{'dataBase64':'YQ=='}");
		fx_expect(fx, "fs/createDirectory", mkdir_params, "{}");
	}
	g_assert_cmpstr(disk_list(fx, ""), ==, "d0,d1,d2,f0,f1,f2");
}

static void
test_sandbox_invalid(Fx *fx)
{
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{x},'dataBase64':'','sandbox':{'windowsSandboxLevel':'disabled'}}",
		-32602,
		"missing field `permissions`");
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{x},'dataBase64':'','sandbox':{'permissions':{'type':'disabled'}}}",
		-32602,
		"missing field `windowsSandboxLevel`");
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{x},'dataBase64':'','sandbox':{'permissions':{'type':'bogus'},"
		"'windowsSandboxLevel':'disabled'}}",
		-32602,
		"unknown variant `bogus`*");
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{x},'dataBase64':'','sandbox':{'permissions':{'type':'disabled'},"
		"'windowsSandboxLevel':'bogus'}}",
		-32602,
		"unknown variant `bogus`*");
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{x},'dataBase64':'','sandbox':'disabled'}",
		-32602,
		"invalid type: *");
	g_assert_cmpstr(disk_list(fx, ""), ==, "");
}

/* 3. nothing lost */

/* a failed write leaves the old content and no temporary file */
static void
test_failed_write_keeps_old(Fx *fx)
{
	disk_mkdir(fx, "d/target");
	disk_write(fx, "d/file", "precious content", -1);
	disk_write(fx, "d/target/inside", "inside", -1);
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{d/file},'dataBase64':'!!!!'}",
		-32600,
		"fs/writeFile requires valid base64 dataBase64: *");
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{d/file},'dataBase64':'cGFydGlhbA=x'}",
		-32600,
		"fs/writeFile requires valid base64 dataBase64: *");
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{d/target},'dataBase64':'YQ=='}",
		-32603,
		"Is a directory*");
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{d/nodir/x},'dataBase64':'YQ=='}",
		-32004,
		ENOENT_TEXT);
	disk_assert_content(fx, "d/file", "precious content", -1);
	disk_assert_content(fx, "d/target/inside", "inside", -1);
	g_assert_cmpstr(disk_list(fx, "d"), ==, "file,target");
	g_assert_cmpstr(disk_list(fx, "d/target"), ==, "inside");
	g_assert_cmpstr(disk_list(fx, ""), ==, "d");
}

/* in a read-only directory a write either fully happens or not at all */
static void
test_write_readonly_dir(Fx *fx)
{
	JsonNode *reply;

	disk_mkdir(fx, "ro");
	disk_write(fx, "ro/file", "old content", -1);
	g_assert_cmpint(g_chmod(fx_path(fx, "ro"), 0555), ==, 0);
	reply = fx_call(fx, "fs/writeFile", "{'path':@{ro/file},'dataBase64':'bmV3'}");
	if (esd_test_json_get(reply, "result") != NULL)
		disk_assert_content(fx, "ro/file", "new", -1);
	else
		disk_assert_content(fx, "ro/file", "old content", -1);
	g_assert_cmpstr(disk_list(fx, "ro"), ==, "file");
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{ro/new},'dataBase64':'bmV3'}",
		-32600,
		"Permission denied (os error 13)");
	g_assert_cmpstr(disk_list(fx, "ro"), ==, "file");
}

/* a read-only file is not replaced behind its owner's back (EACCES → -32600) */
static void
test_write_readonly_file(Fx *fx)
{
	disk_write(fx, "file", "old content", -1);
	g_assert_cmpint(g_chmod(fx_path(fx, "file"), 0444), ==, 0);
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{file},'dataBase64':'bmV3'}",
		-32600,
		"Permission denied (os error 13)");
	disk_assert_content(fx, "file", "old content", -1);
	g_assert_cmpstr(disk_list(fx, ""), ==, "file");
}

/* the daemon must not have the FIFO open once it answered */
static void
assert_fifo_not_open(Fx *fx, const gchar *rel)
{
	int fd = g_open(fx_path(fx, rel), O_WRONLY | O_NONBLOCK | O_CLOEXEC, 0);

	if (fd >= 0) {
		g_close(fd, NULL);
		g_error("someone still has the FIFO %s open for reading", rel);
	}
	g_assert_cmpint(errno, ==, ENXIO);
}

/* reading a FIFO or an endless device is refused at once instead of hanging */
static void
test_read_special(Fx *fx)
{
	gint64 start;

	disk_fifo(fx, "p");
	start = g_get_monotonic_time();
	fx_fail(fx, "fs/readFile", "{'path':@{p}}", -32600, "path `%{p}` is not a file");
	g_assert_cmpint(g_get_monotonic_time() - start, <, 2 * G_USEC_PER_SEC);
	assert_fifo_not_open(fx, "p");
	disk_symlink(fx, "p", "plink");
	fx_fail(fx, "fs/readFile", "{'path':@{plink}}", -32600, "path `%{plink}` is not a file");
	start = g_get_monotonic_time();
	fx_fail(fx,
		"fs/readFile",
		"{'path':'file:///dev/zero'}",
		-32600,
		"path `/dev/zero` is not a file");
	g_assert_cmpint(g_get_monotonic_time() - start, <, 2 * G_USEC_PER_SEC);
	start = g_get_monotonic_time();
	fx_fail(fx,
		"fs/open",
		"{'handleId':'z','path':'file:///dev/zero'}",
		-32600,
		"path `/dev/zero` is not a file");
	fx_fail(fx, "fs/open", "{'handleId':'p','path':@{p}}", -32600, "path `%{p}` is not a file");
	g_assert_cmpint(g_get_monotonic_time() - start, <, 2 * G_USEC_PER_SEC);
	assert_fifo_not_open(fx, "p");
	/* metadata and listings do not open it either */
	fx_ok(fx, "fs/getMetadata", "{'path':@{p}}");
	fx_ok(fx, "fs/readDirectory", "{'path':@{}}");
	fx_ok(fx, "fs/canonicalize", "{'path':@{plink}}");
	assert_fifo_not_open(fx, "p");
	disk_assert_type(fx, "p", S_IFIFO);
}

/* §5.6: pipelined requests */

/* sends every request of @requests (method, params template pairs) at once */
static guint
conn_pipeline(Fx *fx, Conn *conn, const gchar *const *requests, guint n)
{
	guint first = conn->next_id + 1;

	for (guint i = 0; i < n; i++) {
		guint id = ++conn->next_id;
		g_autofree gchar *text =
		    g_strdup_printf("{\"id\":%u,\"method\":\"%s\",\"params\":%s}",
				    id,
				    requests[2 * i],
				    fx_json(fx, requests[2 * i + 1]));
		esd_test_peer_send_text(conn->peer, text);
	}
	g_snprintf(current_request, sizeof(current_request), "%u pipelined requests", n);
	return first;
}

/* the replies to requests @first .. @first + @n - 1, in id order, whatever order they came in */
static GPtrArray *
conn_collect(Fx *fx, Conn *conn, guint first, guint n, gboolean in_order)
{
	GPtrArray *replies = g_ptr_array_new();
	gint64 deadline = g_get_monotonic_time() + 4 * WAIT_MS * 1000;
	guint got = 0;

	g_ptr_array_set_size(replies, (gint)n);
	while (got < n) {
		gint64 left = deadline - g_get_monotonic_time();
		JsonNode *msg;
		JsonNode *id;
		gint64 index;

		if (left <= 0)
			g_error("%u of %u pipelined replies within %d ms", got, n, 4 * WAIT_MS);
		msg = conn_receive(fx, conn, (guint)(left / 1000) + 1);
		id = esd_test_json_get(msg, "id");
		if (id == NULL) {
			g_queue_push_tail(&conn->notifications, msg);
			continue;
		}
		index = json_node_get_int(id) - (gint64)first;
		if (index < 0 || index >= (gint64)n || g_ptr_array_index(replies, index) != NULL) {
			g_autofree gchar *text = esd_test_json_to_string(msg);
			g_error("unexpected reply %s", text);
		}
		if (in_order && index != (gint64)got) {
			g_autofree gchar *text = esd_test_json_to_string(msg);
			g_error("reply %s came before the reply to request %u", text, first + got);
		}
		g_ptr_array_index(replies, index) = msg;
		got++;
	}
	current_request[0] = '\0';
	return replies;
}

static void
assert_reply_result(Fx *fx, JsonNode *reply, const gchar *expected)
{
	JsonNode *result = esd_test_json_get(reply, "result");

	if (result == NULL) {
		g_autofree gchar *text = esd_test_json_to_string(reply);
		g_error("expected the result %s, got %s", fx_json(fx, expected), text);
	}
	esd_assert_json_node_eq(result, fx_json(fx, expected));
}

/* one at a time in arrival order: a read pipelined after a write sees it */
static void
test_pipelined_in_order(Fx *fx)
{
	const gchar *requests[] = {
	    "fs/writeFile",
	    "{'path':@{f},'dataBase64':'QQ=='}",
	    "fs/readFile",
	    "{'path':@{f}}",
	    "fs/writeFile",
	    "{'path':@{f},'dataBase64':'QkI='}",
	    "fs/readFile",
	    "{'path':@{f}}",
	    "fs/createDirectory",
	    "{'path':@{d/e}}",
	    "fs/getMetadata",
	    "{'path':@{d/e}}",
	    "fs/remove",
	    "{'path':@{d}}",
	    "fs/getMetadata",
	    "{'path':@{d}}",
	    "fs/copy",
	    "{'sourcePath':@{f},'destinationPath':@{g},'recursive':false}",
	    "fs/readFile",
	    "{'path':@{g}}",
	    "fs/open",
	    "{'handleId':'w','path':@{h},'mode':'replace'}",
	    "fs/writeBlock",
	    "{'handleId':'w','offset':0,'chunk':'SEk='}",
	    "fs/close",
	    "{'handleId':'w'}",
	    "fs/readFile",
	    "{'path':@{h}}",
	};
	guint n = G_N_ELEMENTS(requests) / 2;
	guint first = conn_pipeline(fx, fx->conn, requests, n);
	g_autoptr(GPtrArray) replies = conn_collect(fx, fx->conn, first, n, TRUE);
	g_autofree gchar *missing_id = g_strdup_printf("%u", first + 7);

	assert_reply_result(fx, g_ptr_array_index(replies, 1), "{'dataBase64':'QQ=='}");
	assert_reply_result(fx, g_ptr_array_index(replies, 3), "{'dataBase64':'QkI='}");
	esd_assert_json_node_eq(
	    esd_test_json_get(g_ptr_array_index(replies, 5), "result.isDirectory"),
	    "true");
	esd_test_peer_assert_reply_error(g_ptr_array_index(replies, 7),
					 missing_id,
					 -32004,
					 ENOENT_TEXT);
	assert_reply_result(fx, g_ptr_array_index(replies, 9), "{'dataBase64':'QkI='}");
	assert_reply_result(fx, g_ptr_array_index(replies, 13), "{'dataBase64':'SEk='}");
}

/* with --concurrent-requests 8 every reply still answers its own request */
static void
test_pipelined_concurrent(Fx *fx)
{
	const guint n = 48;
	g_autoptr(GPtrArray) requests = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) replies = NULL;
	guint first;

	for (guint i = 0; i < n; i++) {
		g_autofree gchar *data = g_strdup_printf("content of file %u", i);
		g_autofree gchar *encoded = g_base64_encode((const guchar *)data, strlen(data));
		g_ptr_array_add(requests, g_strdup("fs/writeFile"));
		g_ptr_array_add(requests,
				g_strdup_printf("{'path':@{f%u},'dataBase64':'%s'}", i, encoded));
	}
	first = conn_pipeline(fx, fx->conn, (const gchar *const *)requests->pdata, n);
	replies = conn_collect(fx, fx->conn, first, n, FALSE);
	for (guint i = 0; i < n; i++) {
		g_autofree gchar *rel = g_strdup_printf("f%u", i);
		g_autofree gchar *data = g_strdup_printf("content of file %u", i);
		assert_reply_result(fx, g_ptr_array_index(replies, i), "{}");
		disk_assert_content(fx, rel, data, -1);
	}
	g_clear_pointer(&replies, g_ptr_array_unref);
	g_ptr_array_set_size(requests, 0);
	for (guint i = 0; i < n; i++) {
		g_ptr_array_add(requests, g_strdup(i % 2 == 0 ? "fs/readFile" : "fs/getMetadata"));
		g_ptr_array_add(requests, g_strdup_printf("{'path':@{f%u}}", i));
	}
	first = conn_pipeline(fx, fx->conn, (const gchar *const *)requests->pdata, n);
	replies = conn_collect(fx, fx->conn, first, n, FALSE);
	for (guint i = 0; i < n; i++) {
		g_autofree gchar *data = g_strdup_printf("content of file %u", i);
		JsonNode *reply = g_ptr_array_index(replies, i);

		if (i % 2 == 0) {
			g_autofree gchar *encoded =
			    g_base64_encode((const guchar *)data, strlen(data));
			g_autofree gchar *expected =
			    g_strdup_printf("{'dataBase64':'%s'}", encoded);
			assert_reply_result(fx, reply, expected);
		} else {
			g_assert_cmpint(esd_test_json_get_int(reply, "result.size"),
					==,
					(gint64)strlen(data));
		}
	}
}

/* 4. capabilities */

static void
assert_capabilities(JsonNode *info)
{
	JsonNode *caps = esd_test_json_get(info, "capabilities");

	g_assert_nonnull(caps);
	esd_assert_json_node_eq(esd_test_json_get(caps, "fsWatchMissing"), "true");
	esd_assert_json_node_eq(esd_test_json_get(caps, "fileWriteStreaming"), "true");
}

static void
test_capabilities(Fx *fx)
{
	assert_capabilities(esd_test_json_get(fx->init_result, "environmentInfo"));
	assert_capabilities(fx_ok(fx, "environment/info", NULL));
}

/* 5. a 50 MiB round trip over WebSocket */

static void
fill_random(guint8 *data, gsize len)
{
	guint64 x = 0x9e3779b97f4a7c15u;

	for (gsize i = 0; i + 8 <= len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(data + i, &x, 8);
	}
	for (gsize i = len & ~(gsize)7; i < len; i++)
		data[i] = (guint8)i;
}

static void
test_big_round_trip(Fx *fx)
{
	const gsize size = 50 * 1024 * 1024 + 3;
	g_autofree guint8 *data = g_malloc(size);
	g_autofree gchar *b64 = NULL;
	g_autofree gchar *request = NULL;
	g_autofree gchar *rest = NULL;
	g_autoptr(GBytes) reply = NULL;
	g_autoptr(GBytes) on_disk = NULL;
	const gchar *key = "\"dataBase64\":\"";
	const gchar *text;
	const gchar *start;
	const gchar *end;
	gsize len = 0;
	gsize b64_len;
	gint64 t0;
	gint64 t1;
	guint id;

	fill_random(data, size);
	b64 = g_base64_encode(data, size);
	b64_len = strlen(b64);

	t0 = g_get_monotonic_time();
	id = ++fx->conn->next_id;
	request = g_strdup_printf(
	    "{\"id\":%u,\"method\":\"fs/writeFile\",\"params\":{\"path\":\"file://%s/big\","
	    "\"dataBase64\":\"%s\"}}",
	    id,
	    fx->dir,
	    b64);
	g_snprintf(current_request, sizeof(current_request), "fs/writeFile of 50 MiB");
	esd_test_peer_send_text(fx->conn->peer, request);
	g_clear_pointer(&request, g_free);
	{
		JsonNode *msg = conn_wait_reply(fx, fx->conn, id, 60000);
		g_autofree gchar *want = g_strdup_printf("{\"id\":%u,\"result\":{}}", id);
		esd_assert_json_node_eq(msg, want);
	}
	t1 = g_get_monotonic_time();
	on_disk = disk_read(fx, "big");
	g_assert_cmpuint(g_bytes_get_size(on_disk), ==, size);
	g_assert_true(memcmp(g_bytes_get_data(on_disk, NULL), data, size) == 0);
	g_clear_pointer(&on_disk, g_bytes_unref);

	id = ++fx->conn->next_id;
	request = g_strdup_printf(
	    "{\"id\":%u,\"method\":\"fs/readFile\",\"params\":{\"path\":\"file://%s/big\"}}",
	    id,
	    fx->dir);
	g_snprintf(current_request, sizeof(current_request), "%s", request);
	esd_test_peer_send_text(fx->conn->peer, request);
	/* the reply is checked as text: only the base64 string is big */
	reply = esd_test_peer_receive(fx->conn->peer, 60000);
	g_assert_nonnull(reply);
	text = g_bytes_get_data(reply, &len);
	start = g_strstr_len(text, (gssize)MIN(len, 4096), key);
	g_assert_nonnull(start);
	start += strlen(key);
	g_assert_cmpuint((gsize)(start - text) + b64_len, <, len);
	end = start + b64_len;
	if (memcmp(start, b64, b64_len) != 0 || *end != '"')
		g_error("fs/readFile returned other data than was written");
	rest = g_strdup_printf("%.*s%.*s",
			       (gint)(start - text),
			       text,
			       (gint)(len - (gsize)(end - text)),
			       end);
	{
		g_autofree gchar *want =
		    g_strdup_printf("{\"id\":%u,\"result\":{\"dataBase64\":\"\"}}", id);
		esd_assert_json_eq(rest, want);
	}
	g_printerr("50 MiB: fs/writeFile %.2f s, fs/readFile %.2f s\n",
		   (gdouble)(t1 - t0) / G_USEC_PER_SEC,
		   (gdouble)(g_get_monotonic_time() - t1) / G_USEC_PER_SEC);
	current_request[0] = '\0';
}

/* 3. nothing lost when a write is interrupted */

/* iterates the main context for @ms so that messages keep arriving */
static void
wait_ms(guint ms)
{
	gint64 until = g_get_monotonic_time() + (gint64)ms * 1000;
	while (g_get_monotonic_time() < until)
		esd_test_iterate(MIN(ms, 20));
}

/*
 * @rel holds the old or the new content whenever it is looked at, and is
 * alone in the scratch directory once the daemon is done with it
 */
static void
wait_old_or_new(Fx *fx, const gchar *rel, const gchar *old, GBytes *new_data, const gchar *what)
{
	gint64 deadline = g_get_monotonic_time() + 15 * G_USEC_PER_SEC;

	for (;;) {
		const gchar *names = disk_list(fx, "");
		g_autoptr(GBytes) content = disk_read(fx, rel);
		gsize size = g_bytes_get_size(content);
		gboolean is_old =
		    size == strlen(old) && memcmp(g_bytes_get_data(content, NULL), old, size) == 0;

		if (!is_old && !g_bytes_equal(content, new_data))
			g_error("%s: %s holds %" G_GSIZE_FORMAT
				" bytes, neither the old nor the new content",
				what,
				rel,
				size);
		if (g_strcmp0(names, rel) == 0)
			return;
		if (g_get_monotonic_time() > deadline)
			g_error("%s: the directory still holds %s", what, names);
		wait_ms(50);
	}
}

static goffset
disk_size(Fx *fx, const gchar *rel)
{
	GStatBuf st;
	g_assert_cmpint(g_stat(fx_path(fx, rel), &st), ==, 0);
	return st.st_size;
}

static gchar *
big_write_request(Fx *fx, guint id, GBytes *data)
{
	g_autofree gchar *encoded =
	    g_base64_encode(g_bytes_get_data(data, NULL), g_bytes_get_size(data));
	return g_strdup_printf("{\"id\":%u,\"method\":\"fs/writeFile\",\"params\":{\"path\":"
			       "\"file://%s/file\",\"dataBase64\":\"%s\"}}",
			       id,
			       fx->dir,
			       encoded);
}

static GBytes *
random_bytes(gsize size)
{
	guint8 *data = g_malloc(size);
	fill_random(data, size);
	return g_bytes_new_take(data, size);
}

/* the connection drops while a 30 MiB fs/writeFile is in flight */
static void
test_disconnect_during_write(Fx *fx)
{
	const guint delays[] = {0, 10, 40, 80, 120, 160, 200, 250, 300, 400};
	g_autoptr(GBytes) new_data = random_bytes(30 * 1024 * 1024);
	g_autofree gchar *request = big_write_request(fx, 1, new_data);

	disk_write(fx, "file", "old content", -1);
	for (guint i = 0; i < G_N_ELEMENTS(delays); i++) {
		g_autoptr(EsdTestWsClient) client =
		    esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
		g_autofree gchar *session_id = esd_test_peer_handshake(ESD_TEST_PEER(client));
		g_autofree gchar *what =
		    g_strdup_printf("dropping the connection %u ms after the request", delays[i]);

		esd_test_peer_send_text(ESD_TEST_PEER(client), request);
		wait_ms(delays[i]);
		esd_test_ws_client_abort(client);
		wait_old_or_new(fx, "file", "old content", new_data, what);
		g_printerr("%s: the file holds the %s content\n",
			   what,
			   g_file_test(fx_path(fx, "file"), G_FILE_TEST_EXISTS) &&
				   g_bytes_get_size(new_data) == (gsize)disk_size(fx, "file")
			       ? "new"
			       : "old");
		disk_write(fx, "file", "old content", -1);
	}
	/* once anything still running had time to finish */
	wait_ms(1000);
	wait_old_or_new(fx, "file", "old content", new_data, "a second after the last drop");
}

/* the daemon is stopped while a 30 MiB fs/writeFile is in flight */
static void
test_sigterm_during_write(Fx *fx)
{
	g_autoptr(GBytes) new_data = random_bytes(30 * 1024 * 1024);
	g_autofree gchar *request = big_write_request(fx, 99, new_data);

	disk_write(fx, "file", "old content", -1);
	esd_test_peer_send_text(fx->conn->peer, request);
	wait_ms(100);
	esd_test_daemon_send_signal(fx->daemon, SIGTERM);
	esd_test_daemon_assert_exit_code(fx->daemon, 0, 10000);
	fx->stopped = TRUE;
	wait_old_or_new(fx, "file", "old content", new_data, "SIGTERM during fs/writeFile");
}

/* registration */

static const CaseDef cases[] = {
    {"read-file/basic", test_read_file, CASE_NONE},
    {"read-file/errors", test_read_file_errors, CASE_NONE},
    {"write-file/basic", test_write_file, CASE_NONE},
    {"write-file/symlink", test_write_file_symlink, CASE_NONE},
    {"write-file/no-follow", test_write_file_no_follow, CASE_NONE},
    {"write-file/modes", test_write_file_modes, CASE_NONE},
    {"write-file/hardlink", test_write_file_hardlink, CASE_NONE},
    {"write-file/owner", test_write_file_owner, CASE_ROOT},
    {"write-file/errors", test_write_file_errors, CASE_NONE},
    {"create-directory/basic", test_create_directory, CASE_NONE},
    {"create-directory/links", test_create_directory_links, CASE_NONE},
    {"symlink-loop/errors", test_symlink_loop_errors, CASE_NONE},
    {"get-metadata/basic", test_get_metadata, CASE_NONE},
    {"get-metadata/errors", test_get_metadata_errors, CASE_NONE},
    {"canonicalize/basic", test_canonicalize, CASE_NONE},
    {"read-directory/basic", test_read_directory, CASE_NONE},
    {"read-directory/many", test_read_directory_many, CASE_NONE},
    {"read-directory/errors", test_read_directory_errors, CASE_NONE},
    {"walk/basic", test_walk, CASE_NONE},
    {"walk/depth", test_walk_depth, CASE_NONE},
    {"walk/order-and-limits", test_walk_order, CASE_NONE},
    {"walk/symlink-loop", test_walk_symlink_loop, CASE_NONE},
    {"walk/symlink-outside", test_walk_symlink_outside, CASE_NONE},
    {"walk/errors", test_walk_errors, CASE_NONE},
    {"read-directory/non-utf8-name", test_non_utf8_name, CASE_NONE},
    {"walk/unreadable", test_walk_unreadable, CASE_NON_ROOT},
    {"remove/basic", test_remove, CASE_NONE},
    {"remove/symlinks", test_remove_symlinks, CASE_NONE},
    {"copy/file", test_copy_file, CASE_NONE},
    {"copy/directory", test_copy_directory, CASE_NONE},
    {"copy/merge", test_copy_merge, CASE_NONE},
    {"copy/errors", test_copy_errors, CASE_NONE},
    {"copy/into-itself-via-link", test_copy_into_itself_via_link, CASE_NONE},
    {"copy/symlink-source", test_copy_symlink_source, CASE_NONE},
    {"copy/special-children", test_copy_special_children, CASE_NONE},
    {"nothing-lost/copy-onto-itself", test_copy_onto_itself, CASE_NONE},
    {"uri/relative", test_uri_relative, CASE_NONE},
    {"uri/scheme", test_uri_scheme, CASE_NONE},
    {"uri/host", test_uri_host, CASE_NONE},
    {"uri/normalised", test_uri_normalised, CASE_NONE},
    {"uri/nul", test_uri_nul, CASE_NONE},
    {"uri/output-escaped", test_uri_output, CASE_NONE},
    {"params/gating", test_gating, CASE_WS_ONLY},
    {"params/missing", test_missing_params, CASE_NONE},
    {"sandbox/restricted", test_sandbox_restricted, CASE_NONE},
    {"sandbox/direct", test_sandbox_direct, CASE_NONE},
    {"sandbox/invalid", test_sandbox_invalid, CASE_NONE},
    {"nothing-lost/failed-write", test_failed_write_keeps_old, CASE_NONE},
    {"nothing-lost/readonly-dir", test_write_readonly_dir, CASE_NON_ROOT},
    {"nothing-lost/readonly-file", test_write_readonly_file, CASE_NON_ROOT},
    {"nothing-lost/special-files", test_read_special, CASE_NONE},
    {"nothing-lost/disconnect-during-write", test_disconnect_during_write, CASE_WS_ONLY | CASE_BIG},
    {"nothing-lost/sigterm-during-write", test_sigterm_during_write, CASE_BIG},
    {"capabilities", test_capabilities, CASE_NONE},
    {"pipelined/in-order", test_pipelined_in_order, CASE_NONE},
    {"pipelined/concurrent", test_pipelined_concurrent, CASE_CONCURRENT},
    {"big-round-trip", test_big_round_trip, CASE_WS_ONLY | CASE_BIG},
};

int
main(int argc, char **argv)
{
	return fs_harness_main(argc, argv, cases, G_N_ELEMENTS(cases), "esd-test-fs");
}
