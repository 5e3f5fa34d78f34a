/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * Processes a test left behind. Every process of a test carries a marker
 * in its environment, `VAR=VALUE` with a value unique to the test: the
 * daemon gets it from the test, the supervisors run with their command's
 * environment, and the test puts it into the environment of every command
 * it starts. What carries the marker after the test is left behind.
 *
 * A zombie has no environment any more; one whose parent carries the
 * marker is left behind as well (a daemon or a supervisor that does not
 * reap). A zombie of an unmarked parent (the test itself, init) is not the
 * test's to judge. Processes whose environment cannot be read (those of
 * other users, non-dumpable ones) are not seen; commands are neither.
 */

typedef struct {
	gint pid;
	gint ppid;
	gchar state;	 /* of /proc/PID/stat: 'Z' a zombie */
	gboolean marked; /* carries the marker; FALSE: a zombie of a marked parent */
	gchar *name;	 /* the command line, or the kernel's name of a zombie */
} EsdTestLeftover;

void
esd_test_leftover_free(EsdTestLeftover *leftover);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdTestLeftover, esd_test_leftover_free)

GPtrArray *
esd_test_leftovers_find(const gchar *var, const gchar *value);
gchar *
esd_test_leftovers_describe(GPtrArray *leftovers);
gboolean
esd_test_leftovers_wait_none(const gchar *var,
			     const gchar *value,
			     guint timeout_ms,
			     gchar **report);

/**
 * esd_test_assert_nothing_left:
 * @var: the marker's name
 * @value: the marker's value
 * @timeout_ms: how long the processes have to go
 *
 * Fails the test when processes carrying `@var=@value` (or zombies of
 * them) are still there after @timeout_ms; they are killed first, so that
 * one failure does not spill into the next test.
 */
#define esd_test_assert_nothing_left(var, value, timeout_ms)                                       \
	esd_test_assert_nothing_left_impl(__FILE__, __LINE__, G_STRFUNC, var, value, timeout_ms)

void
esd_test_assert_nothing_left_impl(const gchar *file,
				  gint line,
				  const gchar *func,
				  const gchar *var,
				  const gchar *value,
				  guint timeout_ms);

G_END_DECLS
