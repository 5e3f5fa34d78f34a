/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* what discoverV2 reads from a SKILL.md front matter */
typedef struct {
	gchar *name; /* or NULL: the directory's name is used */
	gchar *description;
	gchar *short_description; /* `metadata.short-description`, or NULL */
} EsdDiscoverySkillMeta;

void
esd_discovery_skill_meta_clear(EsdDiscoverySkillMeta *meta);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(EsdDiscoverySkillMeta, esd_discovery_skill_meta_clear)

JsonNode *
esd_discovery_yaml_parse(const gchar *text, gsize len, GError **error);
gboolean
esd_discovery_front_matter_parse(const gchar *text,
				 gsize len,
				 EsdDiscoverySkillMeta *meta,
				 GError **error);
gboolean
esd_discovery_skill_metadata_parse(const gchar *text,
				   gsize len,
				   JsonNode **dependencies,
				   JsonNode **policy,
				   GError **error);

G_END_DECLS
