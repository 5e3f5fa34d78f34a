/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

/*
 * Replays inputs through a libFuzzer target without libFuzzer, so that a
 * build with gcc runs the corpus as a regression test (after fwupd's
 * fu-fuzzer-main.c). Arguments are files or directories; directories are
 * read in name order, without recursion, skipping names starting with a dot
 * and README files.
 *
 * Inputs named `known-bug-*` reproduce bugs that are reported and not fixed
 * yet. They run in a child process: a crash is reported and does not fail
 * the run, and one that passes is reported so that it can be renamed into a
 * regular regression input.
 */

#include "config.h"

#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define FUZZ_KNOWN_BUG_PREFIX "known-bug-"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* runs a known bug where its crash cannot end the run */
static void
fuzz_replay_known_bug(const gchar *path, const gchar *data, gsize len)
{
	pid_t pid;
	gint status = 0;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		g_printerr("%s: cannot fork, skipped\n", path);
		return;
	}
	if (pid == 0) {
		LLVMFuzzerTestOneInput((const uint8_t *)data, len);
		_exit(EXIT_SUCCESS);
	}
	while (waitpid(pid, &status, 0) < 0) {
		g_printerr("%s: waitpid failed, skipped\n", path);
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_SUCCESS)
		g_print("%s: FIXED: the known bug no longer reproduces; rename the file\n", path);
	else
		g_print("%s: known bug, not fixed yet (%s %d)\n",
			path,
			WIFSIGNALED(status) ? "signal" : "exit status",
			WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

static gboolean
fuzz_replay_file(const gchar *path, guint *count)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *data = NULL;
	g_autofree gchar *basename = g_path_get_basename(path);
	gsize len = 0;

	if (!g_file_get_contents(path, &data, &len, &error)) {
		g_printerr("%s: %s\n", path, error->message);
		return FALSE;
	}
	/* named first, so that a crash shows which input it was */
	g_print("%s (%" G_GSIZE_FORMAT " bytes)\n", path, len);
	fflush(stdout);
	if (g_str_has_prefix(basename, FUZZ_KNOWN_BUG_PREFIX))
		fuzz_replay_known_bug(path, data, len);
	else
		LLVMFuzzerTestOneInput((const uint8_t *)data, len);
	(*count)++;
	return TRUE;
}

static gint
fuzz_compare_names(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

static gboolean
fuzz_replay_dir(const gchar *path, guint *count)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GDir) dir = g_dir_open(path, 0, &error);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	const gchar *name;
	gboolean ret = TRUE;

	if (dir == NULL) {
		g_printerr("%s: %s\n", path, error->message);
		return FALSE;
	}
	while ((name = g_dir_read_name(dir)) != NULL) {
		if (name[0] == '.' || g_str_has_prefix(name, "README"))
			continue;
		g_ptr_array_add(names, g_build_filename(path, name, NULL));
	}
	g_ptr_array_sort(names, fuzz_compare_names);
	for (guint i = 0; i < names->len; i++) {
		const gchar *file = g_ptr_array_index(names, i);
		if (g_file_test(file, G_FILE_TEST_IS_DIR))
			continue;
		if (!fuzz_replay_file(file, count))
			ret = FALSE;
	}
	return ret;
}

int
main(int argc, char **argv)
{
	guint count = 0;
	gboolean ret = TRUE;

	if (argc < 2) {
		g_printerr("usage: %s FILE|DIRECTORY...\n", argv[0]);
		return EXIT_FAILURE;
	}
	for (gint i = 1; i < argc; i++) {
		/* a target may change directory (fuzz-params works in a scratch one) */
		g_autofree gchar *arg = g_canonicalize_filename(argv[i], NULL);
		if (g_file_test(arg, G_FILE_TEST_IS_DIR)) {
			if (!fuzz_replay_dir(arg, &count))
				ret = FALSE;
		} else if (!fuzz_replay_file(arg, &count)) {
			ret = FALSE;
		}
	}
	if (count == 0) {
		g_printerr("no inputs found\n");
		return EXIT_FAILURE;
	}
	g_print("replayed %u inputs\n", count);
	return ret ? EXIT_SUCCESS : EXIT_FAILURE;
}
