/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _EsdNpNotes EsdNpNotes;

EsdNpNotes *
esd_np_notes_new(GMainContext *context, GFunc deliver, GDestroyNotify free_func, GError **error);
EsdNpNotes *
esd_np_notes_ref(EsdNpNotes *self);
void
esd_np_notes_unref(EsdNpNotes *self);
void
esd_np_notes_post(EsdNpNotes *self, gpointer note);
void
esd_np_notes_flush(EsdNpNotes *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdNpNotes, esd_np_notes_unref)

G_END_DECLS
