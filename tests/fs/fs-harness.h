/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <sys/types.h>

#include "esd-test-utils.h"

G_BEGIN_DECLS

/*
 * The harness shared by the fs tests: each case runs in its own child
 * process with its own daemon and scratch directory; requests and expected
 * replies are templates (see test-fs.c).
 */

#define FS_TEST	       "/execserverd/fs/"
#define ROOT_VAR       "ESD_FS_TEST_ROOT"
#define WAIT_MS	       5000
#define CASE_TIMEOUT_S 30
#define BIG_TIMEOUT_S  70

#define ENOENT_TEXT "No such file or directory (os error 2)"

typedef struct {
	EsdTestWsClient *client; /* NULL over stdio */
	EsdTestPeer *peer;
	GQueue notifications; /* of JsonNode, owned by Fx.nodes */
	guint next_id;
} Conn;

typedef struct {
	gboolean ws;
	EsdTestDaemon *daemon;
	Conn *conn;
	gchar *session_id;
	JsonNode *init_result;
	gboolean stopped;	/* the test stopped the daemon itself */
	GPtrArray *extra_conns; /* of Conn */
	gchar *dir;		/* the scratch directory of the case, canonical */
	GPtrArray *strings;	/* freed with the fixture */
	GPtrArray *nodes;	/* every message received, freed with the fixture */
} Fx;

typedef void (*FsTestFunc)(Fx *fx);

typedef enum {
	CASE_NONE = 0,
	CASE_WS_ONLY = 1 << 0,
	CASE_NON_ROOT = 1 << 1,	  /* root bypasses permission bits */
	CASE_BIG = 1 << 2,	  /* a longer timeout */
	CASE_ROOT = 1 << 3,	  /* needs chown() */
	CASE_CONCURRENT = 1 << 4, /* --concurrent-requests 8 */
	CASE_SANDBOX = 1 << 5,	  /* needs user namespaces: fs_harness_set_skip_func() */
} CaseFlags;

typedef struct {
	const gchar *name;
	FsTestFunc func;
	guint flags;
} CaseDef;

typedef struct {
	const CaseDef *def;
	gboolean ws;
} Case;

/* what the running case waits for, printed when a wait gives up */
extern gchar current_request[512];

void
error_log_cb(const gchar *log_domain,
	     GLogLevelFlags log_level,
	     const gchar *message,
	     gpointer user_data);

const gchar *
fx_keep(Fx *fx, gchar *text);

const gchar *
fx_path(Fx *fx, const gchar *rel);

gchar *
expand(Fx *fx, const gchar *tmpl, gboolean json);

const gchar *
fx_json(Fx *fx, const gchar *tmpl);

const gchar *
fx_text(Fx *fx, const gchar *tmpl);

Conn *
conn_new(EsdTestPeer *peer, EsdTestWsClient *client);

void
conn_free(Conn *conn);

gboolean
conn_is_open(Conn *conn);

JsonNode *
conn_receive(Fx *fx, Conn *conn, guint timeout_ms);

JsonNode *
conn_wait_reply(Fx *fx, Conn *conn, guint id, guint timeout_ms);

guint
conn_request(Fx *fx, Conn *conn, const gchar *method, const gchar *params);

JsonNode *
conn_call(Fx *fx, Conn *conn, const gchar *method, const gchar *params);

void
describe_reply_failure(JsonNode *reply, const gchar *method, const gchar *what);

JsonNode *
conn_ok(Fx *fx, Conn *conn, const gchar *method, const gchar *params);

void
conn_expect(Fx *fx, Conn *conn, const gchar *method, const gchar *params, const gchar *expected);

void
conn_fail(Fx *fx,
	  Conn *conn,
	  const gchar *method,
	  const gchar *params,
	  gint64 code,
	  const gchar *message);

void
conn_sync(Fx *fx, Conn *conn);

JsonNode *
conn_initialize(Fx *fx, Conn *conn, const gchar *resume_session_id);

gboolean
safe_path(const gchar *path);

void
rm_rf(const gchar *path);

void
disk_write(Fx *fx, const gchar *rel, const gchar *data, gssize len);

void
disk_mkdir(Fx *fx, const gchar *rel);

void
disk_symlink(Fx *fx, const gchar *target, const gchar *rel);

void
disk_fifo(Fx *fx, const gchar *rel);

GBytes *
disk_read(Fx *fx, const gchar *rel);

void
disk_assert_content(Fx *fx, const gchar *rel, const gchar *data, gssize len);

gboolean
disk_exists(Fx *fx, const gchar *rel);

void
disk_assert_missing(Fx *fx, const gchar *rel);

/* whether the case @def cannot run here, and why; asked in the parent, before the child starts */
typedef gboolean (*FsSkipFunc)(const CaseDef *def, gchar **reason);

void
fs_harness_set_skip_func(FsSkipFunc func);

int
fs_harness_main(int argc, char **argv, const CaseDef *cases, guint n_cases, const gchar *prefix);

G_END_DECLS
