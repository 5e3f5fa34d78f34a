/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <sys/stat.h>

#include "esd-test-paths.h"

/**
 * esd_test_find_shared_ancestor:
 * @path: an absolute path
 *
 * The plugin loader trusts a directory of an unmapped owner (the overflow
 * uid of a user namespace) only where nobody else can write to the
 * directories above it, sticky or not: inside the namespace root and any
 * other unmapped user look alike. A build tree below /tmp is such a place,
 * so tests of that rule skip there.
 *
 * Returns: (transfer full) (nullable): the first directory above @path, from
 *   `/` down, that its group or others may write to; %NULL if there is none
 */
gchar *
esd_test_find_shared_ancestor(const gchar *path)
{
	g_autofree gchar *dir = g_path_get_dirname(path);
	g_auto(GStrv) parts = g_strsplit(dir, "/", -1);
	g_autoptr(GString) current = g_string_new("/");

	for (guint i = 0;; i++) {
		struct stat st;

		if (stat(current->str, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 022) != 0)
			return g_strdup(current->str);
		while (parts[i] != NULL && parts[i][0] == '\0')
			i++;
		if (parts[i] == NULL)
			return NULL;
		if (current->len > 1)
			g_string_append_c(current, '/');
		g_string_append(current, parts[i]);
	}
}
