/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc.h>

#include "esd-test-utils.h"

G_BEGIN_DECLS

/*
 * Helpers of the client tests: waiting for async results, a connected
 * client for a test daemon, a recorder of a process's events, and a TCP
 * proxy that can drop its connections (or speak HTTP CONNECT).
 */

#define ERPC_TEST_TIMEOUT_MS 15000

void
erpc_test_init(gint *argc, gchar ***argv);

void
erpc_test_result_cb(GObject *source, GAsyncResult *res, gpointer user_data);
GAsyncResult *
erpc_test_wait(GAsyncResult **slot);

void
erpc_test_connect(ErpcClient *client);
ErpcClient *
erpc_test_client_new_stdio(void);

/* a connected client: over WebSocket when the test data is TRUE, else stdio */
typedef struct {
	EsdTestDaemon *daemon;
	ErpcClient *client;
	gchar *tmpdir;
} ErpcTestFixture;

void
erpc_test_fixture_setup(ErpcTestFixture *fx, gconstpointer user_data);
void
erpc_test_fixture_teardown(ErpcTestFixture *fx, gconstpointer user_data);

/* everything a process emitted, in order */
typedef struct {
	GString *out;	 /* stdout and pty */
	GString *err;	 /* stderr */
	GString *events; /* "o" per chunk, "x<code>", "c" */
	gint exit_code;
	gboolean exited;
	gboolean closed;
	guint64 seq_errors; /* events whose seq did not follow the previous one */
} ErpcTestRun;

void
erpc_test_run_watch(ErpcTestRun *run, ErpcClientProcess *process);
void
erpc_test_run_clear(ErpcTestRun *run);
ErpcClientProcess *
erpc_test_start(ErpcClient *client,
		const gchar *process_id,
		const gchar *const *argv,
		gboolean pipe_stdin,
		ErpcTestRun *run);
void
erpc_test_wait_closed(ErpcTestRun *run);

/* a TCP proxy in this process, on 127.0.0.1 */
#define ERPC_TYPE_TEST_PROXY (erpc_test_proxy_get_type())
G_DECLARE_FINAL_TYPE(ErpcTestProxy, erpc_test_proxy, ERPC, TEST_PROXY, GObject)

ErpcTestProxy *
erpc_test_proxy_new(guint16 upstream_port, gboolean http_connect);
guint16
erpc_test_proxy_get_port(ErpcTestProxy *self);
gchar *
erpc_test_proxy_get_url(ErpcTestProxy *self);
void
erpc_test_proxy_set_upstream(ErpcTestProxy *self, guint16 upstream_port);
void
erpc_test_proxy_cut_after(ErpcTestProxy *self, gsize downstream_bytes, guint connections);
void
erpc_test_proxy_freeze(ErpcTestProxy *self);
void
erpc_test_proxy_cut(ErpcTestProxy *self);
void
erpc_test_proxy_refuse(ErpcTestProxy *self, gboolean refuse);
guint
erpc_test_proxy_get_connections(ErpcTestProxy *self);
const gchar *
erpc_test_proxy_get_connect_target(ErpcTestProxy *self);
const gchar *
erpc_test_proxy_get_upstream_head(ErpcTestProxy *self);

G_END_DECLS
