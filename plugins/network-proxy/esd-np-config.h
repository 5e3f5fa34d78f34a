/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc.h>

G_BEGIN_DECLS

typedef enum {
	ESD_NP_RULE_NONE,
	ESD_NP_RULE_ALLOW,
	ESD_NP_RULE_DENY,
	ESD_NP_RULE_REVIEW, /* allowed, and a review domain: the decider's to allow */
} EsdNpRule;

/* a parsed `networkProxy`, immutable once parsed: proxy threads read it */
typedef struct {
	gboolean limited;
	gboolean allow_local_binding;
	gboolean socks5;
	gboolean socks5_udp; /* enableSocks5Udp with enableSocks5 */
	gboolean allow_upstream_proxy;
	guint64 decision_timeout_ms; /* 0: no decider */
	GPtrArray *allow;	     /* globs: esd_np_policy_pattern_compile() */
	GPtrArray *deny;
	GPtrArray *review;
	GPtrArray *exact; /* the allowed hosts named without a wildcard */
	gboolean credential_masking;
	GPtrArray *providers; /* credentialProviders: esd_np_creds_parse_providers() */
} EsdNpConfig;

EsdNpConfig *
esd_np_config_parse(JsonNode *value, gboolean sandboxed, GError **error);
EsdNpRule
esd_np_config_match(const EsdNpConfig *self, const gchar *host);
gboolean
esd_np_config_names(const EsdNpConfig *self, const gchar *host);
void
esd_np_config_free(EsdNpConfig *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdNpConfig, esd_np_config_free)

G_END_DECLS
