/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

/* the id of the one request the helper runs */
#define ESD_FS_SANDBOX_REQUEST_ID 1

typedef struct _EsdFsAnswer EsdFsAnswer;

gboolean
esd_fs_answer_is_result(const gchar *data, gsize len);

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
