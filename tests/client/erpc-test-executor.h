/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * A scripted executor for the client tests: a WebSocket server in this
 * process (libsoup) that answers initialize with the capabilities it is
 * told, and capability discovery from what it was asked, and can drop the
 * connection on a discovery, refuse to resume a session, or answer with
 * roots that do not match.
 */

typedef struct {
	/* what it does */
	gboolean sandbox_capability; /* capabilityDiscoverySandbox */
	gboolean v2_capability;	     /* capabilityDiscoveryV2 */
	guint drop_discovers;	     /* close the connection on the next N discoveries */
	gboolean refuse_resume;	     /* answer a resumeSessionId with -32600 */
	gboolean mismatch;	     /* answer discovery with another root id */
	/* what it saw */
	guint connections;
	guint initializes;
	guint resumes;
	guint discovers; /* answered or dropped */
	JsonObject *last_params;
	/* private */
	gpointer server;
	GPtrArray *sockets; /* every connection, open or not */
	guint sessions;
	guint16 port;
} ErpcTestExecutor;

ErpcTestExecutor *
erpc_test_executor_new(void);
void
erpc_test_executor_free(ErpcTestExecutor *self);
gchar *
erpc_test_executor_get_url(ErpcTestExecutor *self);
void
erpc_test_executor_drop_all(ErpcTestExecutor *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ErpcTestExecutor, erpc_test_executor_free)

G_END_DECLS
