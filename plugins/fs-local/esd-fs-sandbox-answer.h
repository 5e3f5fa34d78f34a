/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

typedef struct _EsdFsAnswer EsdFsAnswer;

EsdFsAnswer *
esd_fs_answer_new(ErpcCall *call);
void
esd_fs_answer_free(EsdFsAnswer *self);
gboolean
esd_fs_answer_feed(EsdFsAnswer *self, const gchar *data, gsize len, GError **error);
gboolean
esd_fs_answer_finish(EsdFsAnswer *self, GError **error);
GString *
esd_fs_answer_steal_result(EsdFsAnswer *self);
const GError *
esd_fs_answer_get_error(EsdFsAnswer *self);
JsonNode *
esd_fs_answer_steal_error_data(EsdFsAnswer *self);
gboolean
esd_fs_json_is_value(const gchar *data, gsize len);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdFsAnswer, esd_fs_answer_free)

G_END_DECLS
