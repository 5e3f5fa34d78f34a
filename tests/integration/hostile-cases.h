/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "esd-test-utils.h"

G_BEGIN_DECLS

/*
 * The rows of test-hostile.c: hostile input and the answer the daemon gives
 * today, over WebSocket and stdio. Every request has id 7; paths point
 * below /nonexistent-esd-hostile, so that a check that let a request through
 * would fail the row (-32004) instead of touching anything.
 */

typedef enum {
	HOSTILE_WS = 1 << 0,	/* run over WebSocket */
	HOSTILE_STDIO = 1 << 1, /* run over stdio */
	HOSTILE_MALFORMED =
	    1 << 2,		/* id -1, -32600, the transport's parse error prefix + message */
	HOSTILE_CLOSE = 1 << 3, /* the connection ends without a reply */
} HostileFlags;

#define HOSTILE_BOTH (HOSTILE_WS | HOSTILE_STDIO)

typedef struct _HostileCase HostileCase;

/*
 * A scenario row: runs instead of sending @request, on a peer that has done
 * the handshake; @daemon is the one serving it. Checking that a fresh
 * connection is served and that no warning was logged is left to the caller.
 */
typedef void (*HostileFunc)(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row);

struct _HostileCase {
	const gchar *name;
	guint flags;
	const gchar *request; /* one message, sent after the handshake */
	gssize len;	      /* of @request, or -1 for strlen() */
	gint64 code;	      /* ignored with HOSTILE_MALFORMED */
	const gchar *message; /* exact; g_pattern_match_simple() in the few rows with `*` */
	HostileFunc func;     /* a scenario row, instead of @request */
};

/* scenario rows, in test-hostile.c */
void
hostile_oversized_message(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row);
void
hostile_oversized_fragments(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row);
void
hostile_half_frame(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row);
void
hostile_half_upgrade(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row);
void
hostile_half_line(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row);
void
hostile_bad_frame(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row);
void
hostile_vanish_mid_frame(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row);
void
hostile_vanish_mid_request(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row);

/* clang-format off */
#define REQ(method, params) "{\"id\":7,\"method\":\"" method "\",\"params\":" params "}"
#define NOPE "file:///nonexistent-esd-hostile"
#define START(members) REQ("process/start", "{\"processId\":\"p\",\"argv\":[\"true\"],\"cwd\":\"" NOPE "\",\"env\":{},\"tty\":false" members "}")
#define READ_FILE(path) REQ("fs/readFile", "{\"path\":\"" path "\"}")
#define SANDBOX(permissions) REQ("fs/readFile", "{\"path\":\"" NOPE "\",\"sandbox\":{\"windowsSandboxLevel\":\"disabled\",\"permissions\":" permissions "}}")
#define RESTRICTED(entries) SANDBOX("{\"type\":\"managed\",\"network\":\"restricted\",\"file_system\":{\"type\":\"restricted\",\"entries\":" entries "}}")
#define NOT_UTF8 "message is not valid UTF-8 or contains a NUL byte"
#define NUL_ESCAPE "NUL characters (\\u0000) in strings are not supported"
#define BAD_ESCAPE "invalid URI: the path contains a NUL byte or a bad escape"
#define NO_BASE "invalid URI: relative URL without a base"

#define PROCESS_READ(params) REQ("process/read", params)
#define READ_BLOCK(params) REQ("fs/readBlock", params)
#define WRITE_BLOCK(params) REQ("fs/writeBlock", params)
#define WATCH_MISSING(params) REQ("fs/watchMissing", params)
#define WALK(params) REQ("fs/walk", params)

/* a u64 member, between @before and @after in what @wrap makes: negative, fractional, 1e400, 2^64 */
#define U64_ROWS(name, wrap, before, after) \
    {name "-negative", HOSTILE_BOTH, wrap(before "-1" after), -1, -32602, "invalid value: integer `-1`, expected u64"}, \
    {name "-fraction", HOSTILE_BOTH, wrap(before "0.5" after), -1, -32602, "invalid type: floating point `0.5`, expected u64"}, \
    {name "-1e400", HOSTILE_BOTH | HOSTILE_MALFORMED, wrap(before "1e400" after), -1, 0, "number out of range"}, \
    {name "-2e64", HOSTILE_BOTH, wrap(before "18446744073709551616" after), -1, -32602, \
     "invalid type: floating point `18446744073709552000.0`, expected u64"}

static const HostileCase hostile_cases[] = {
    /* malformed UTF-8: the frame is refused before it is parsed */
    {"utf8-in-string", HOSTILE_BOTH | HOSTILE_MALFORMED, READ_FILE(NOPE "/\xff"), -1, 0, NOT_UTF8},
    {"utf8-in-member-name", HOSTILE_BOTH | HOSTILE_MALFORMED, REQ("fs/readFile", "{\"pa\xfeth\":\"" NOPE "\"}"), -1, 0, NOT_UTF8},
    {"utf8-overlong", HOSTILE_BOTH | HOSTILE_MALFORMED, READ_FILE(NOPE "/\xc0\xaf"), -1, 0, NOT_UTF8},
    {"utf8-surrogate", HOSTILE_BOTH | HOSTILE_MALFORMED, START(",\"arg0\":\"\xed\xa0\x80\""), -1, 0, NOT_UTF8},
    {"utf8-truncated", HOSTILE_BOTH | HOSTILE_MALFORMED, REQ("process/read", "{\"processId\":\"\xe2\x82\"}"), -1, 0, NOT_UTF8},
    {"utf8-in-env-name", HOSTILE_BOTH | HOSTILE_MALFORMED, START(",\"env\":{\"A\x80\":\"x\"}"), -1, 0, NOT_UTF8},
    {"utf8-escaped-lone-surrogate", HOSTILE_BOTH | HOSTILE_MALFORMED, READ_FILE(NOPE "/\\ud800"), -1, 0,
     "lone leading surrogate in hex escape"},

    /* NUL bytes, raw and escaped, wherever a string reaches the system */
    {"nul-raw-in-path", HOSTILE_BOTH | HOSTILE_MALFORMED, READ_FILE(NOPE "/a\0b"), sizeof(READ_FILE(NOPE "/a\0b")) - 1, 0, NOT_UTF8},
    {"nul-raw-in-argv", HOSTILE_BOTH | HOSTILE_MALFORMED, START(",\"argv\":[\"tr\0ue\"]"), sizeof(START(",\"argv\":[\"tr\0ue\"]")) - 1, 0, NOT_UTF8},
    {"nul-raw-in-env-value", HOSTILE_BOTH | HOSTILE_MALFORMED, START(",\"env\":{\"A\":\"x\0\"}"), sizeof(START(",\"env\":{\"A\":\"x\0\"}")) - 1, 0, NOT_UTF8},
    {"nul-raw-in-handle-id", HOSTILE_BOTH | HOSTILE_MALFORMED, REQ("fs/close", "{\"handleId\":\"\0\"}"), sizeof(REQ("fs/close", "{\"handleId\":\"\0\"}")) - 1, 0, NOT_UTF8},
    {"nul-escaped-in-path", HOSTILE_BOTH | HOSTILE_MALFORMED, READ_FILE(NOPE "/a\\u0000b"), -1, 0, NUL_ESCAPE},
    {"nul-escaped-in-cwd", HOSTILE_BOTH | HOSTILE_MALFORMED, START(",\"cwd\":\"file:///tmp\\u0000/x\""), -1, 0, NUL_ESCAPE},
    {"nul-escaped-in-argv0", HOSTILE_BOTH | HOSTILE_MALFORMED, START(",\"argv\":[\"/bin/true\\u0000x\"]"), -1, 0, NUL_ESCAPE},
    {"nul-escaped-in-argv1", HOSTILE_BOTH | HOSTILE_MALFORMED, START(",\"argv\":[\"true\",\"a\\u0000b\"]"), -1, 0, NUL_ESCAPE},
    {"nul-escaped-in-env-name", HOSTILE_BOTH | HOSTILE_MALFORMED, START(",\"env\":{\"A\\u0000B\":\"x\"}"), -1, 0, NUL_ESCAPE},
    {"nul-escaped-in-env-value", HOSTILE_BOTH | HOSTILE_MALFORMED, START(",\"env\":{\"A\":\"x\\u0000y\"}"), -1, 0, NUL_ESCAPE},
    {"nul-escaped-in-process-id", HOSTILE_BOTH | HOSTILE_MALFORMED, REQ("process/terminate", "{\"processId\":\"p\\u0000q\"}"), -1, 0, NUL_ESCAPE},
    {"nul-escaped-in-handle-id", HOSTILE_BOTH | HOSTILE_MALFORMED, REQ("fs/close", "{\"handleId\":\"h\\u0000\"}"), -1, 0, NUL_ESCAPE},
    {"nul-escaped-in-write-id", HOSTILE_BOTH | HOSTILE_MALFORMED, REQ("process/write", "{\"processId\":\"p\",\"chunk\":\"\",\"writeId\":\"\\u0000\"}"), -1, 0, NUL_ESCAPE},
    {"nul-percent-in-path", HOSTILE_BOTH, READ_FILE(NOPE "/a%00b"), -1, -32602, BAD_ESCAPE},
    {"nul-percent-in-cwd", HOSTILE_BOTH, START(",\"cwd\":\"file:///tmp%00\""), -1, -32602, BAD_ESCAPE},

    /* URIs that are not absolute local file URIs */
    {"uri-http", HOSTILE_BOTH, READ_FILE("http://127.0.0.1/x"), -1, -32602, "unsupported path URI scheme `http`"},
    {"uri-scheme-case", HOSTILE_BOTH, READ_FILE("HTTPS://x/y"), -1, -32602, "unsupported path URI scheme `https`"},
    {"uri-file-relative", HOSTILE_BOTH, READ_FILE("file:relative"), -1, -32602, "invalid URI: file:relative is not absolute"},
    {"uri-file-host", HOSTILE_BOTH, READ_FILE("file://host/path"), -1, -32600, "'file://host/path' is invalid on 'linux'"},
    {"uri-relative-path", HOSTILE_BOTH, READ_FILE("relative/x"), -1, -32602, NO_BASE},
    {"uri-absolute-path", HOSTILE_BOTH, READ_FILE("/nonexistent-esd-hostile"), -1, -32602, NO_BASE},
    {"uri-empty", HOSTILE_BOTH, READ_FILE(""), -1, -32602, NO_BASE},
    {"uri-bad-escape", HOSTILE_BOTH, READ_FILE(NOPE "/%zz"), -1, -32602, BAD_ESCAPE},
    /* escaped dots are segments too: this resolves to /nonexistent-esd-hostile-2 */
    {"uri-escaped-dotdot", HOSTILE_BOTH, READ_FILE(NOPE "/%2e%2e/%2E%2E/nonexistent-esd-hostile-2"), -1, -32004,
     "No such file or directory (os error 2)"},
    {"uri-cwd-http", HOSTILE_BOTH, START(",\"cwd\":\"http://x/\""), -1, -32602, "unsupported path URI scheme `http`"},
    {"uri-copy-destination-host", HOSTILE_BOTH,
     REQ("fs/copy", "{\"sourcePath\":\"" NOPE "\",\"destinationPath\":\"file://h/x\",\"recursive\":true}"), -1, -32600,
     "'file://h/x' is invalid on 'linux'"},
    {"uri-watch-missing-relative", HOSTILE_BOTH, REQ("fs/watchMissing", "{\"watchId\":1,\"missing\":[\"x\"]}"), -1, -32602, NO_BASE},
    {"uri-watch-present-http", HOSTILE_BOTH, REQ("fs/watchMissing", "{\"watchId\":1,\"missing\":[],\"present\":\"http://x\"}"),
     -1, -32602, "unsupported path URI scheme `http`"},
    {"uri-sandbox-entry-plain-path", HOSTILE_BOTH, RESTRICTED("[{\"access\":\"read\",\"path\":{\"type\":\"path\",\"path\":\"/etc\"}}]"),
     -1, -32602, NO_BASE},

    /* base64 that is not */
    {"base64-write-file-symbol", HOSTILE_BOTH, REQ("fs/writeFile", "{\"path\":\"" NOPE "/x\",\"dataBase64\":\"!!!!\"}"), -1, -32600,
     "fs/writeFile requires valid base64 dataBase64: Invalid symbol 33, offset 0."},
    {"base64-write-file-padding", HOSTILE_BOTH, REQ("fs/writeFile", "{\"path\":\"" NOPE "/x\",\"dataBase64\":\"QQ=\"}"), -1, -32600,
     "fs/writeFile requires valid base64 dataBase64: Invalid padding"},
    {"base64-process-write-symbol", HOSTILE_BOTH, REQ("process/write", "{\"processId\":\"p\",\"chunk\":\"QU\\nJ\",\"writeId\":\"w\"}"), -1,
     -32602, "Invalid symbol 10, offset 2."},
    {"base64-process-write-length", HOSTILE_BOTH, REQ("process/write", "{\"processId\":\"p\",\"chunk\":\"QUJD=\",\"writeId\":\"w\"}"), -1,
     -32602, "Invalid symbol 61, offset 4."},
    {"base64-write-block-symbol", HOSTILE_BOTH, REQ("fs/writeBlock", "{\"handleId\":\"h\",\"offset\":0,\"chunk\":\"QQ=\\u00e9\"}"), -1,
     -32602, "Invalid symbol 169, offset 4."},
    {"base64-write-block-inner-padding", HOSTILE_BOTH, REQ("fs/writeBlock", "{\"handleId\":\"h\",\"offset\":0,\"chunk\":\"QQ==QQ==\"}"), -1,
     -32602, "Invalid symbol 61, offset 2."},

    /* numbers out of every u64 member's range */
    U64_ROWS("number-after-seq", PROCESS_READ, "{\"processId\":\"p\",\"afterSeq\":", "}"),
    U64_ROWS("number-max-bytes", PROCESS_READ, "{\"processId\":\"p\",\"maxBytes\":", "}"),
    U64_ROWS("number-wait-ms", PROCESS_READ, "{\"processId\":\"p\",\"waitMs\":", "}"),
    U64_ROWS("number-read-offset", READ_BLOCK, "{\"handleId\":\"h\",\"len\":1,\"offset\":", "}"),
    U64_ROWS("number-read-len", READ_BLOCK, "{\"handleId\":\"h\",\"offset\":0,\"len\":", "}"),
    U64_ROWS("number-write-offset", WRITE_BLOCK, "{\"handleId\":\"h\",\"chunk\":\"QQ==\",\"offset\":", "}"),
    U64_ROWS("number-watch-id", WATCH_MISSING, "{\"missing\":[],\"watchId\":", "}"),
    U64_ROWS("number-walk-depth", WALK, "{\"path\":\"" NOPE "\",\"options\":{\"maxDirectories\":1,\"maxEntries\":1,"
             "\"followDirectorySymlinks\":false,\"maxDepth\":", "}}"),
    U64_ROWS("number-glob-depth", RESTRICTED, "[],\"glob_scan_max_depth\":", ""),
    /* process/signal takes a name, not a number (there is no resize: no rows or cols) */
    {"number-signal", HOSTILE_BOTH, REQ("process/signal", "{\"processId\":\"p\",\"signal\":9}"), -1, -32602,
     "invalid type: integer `9`, expected a string"},
    {"number-id-2e64", HOSTILE_BOTH | HOSTILE_MALFORMED, "{\"id\":18446744073709551616,\"method\":\"environment/status\"}", -1, 0,
     "data did not match any variant of untagged enum RequestId"},

    /* wrong types, from the params down to the sandbox */
    {"type-params-array", HOSTILE_BOTH, REQ("fs/readFile", "[\"" NOPE "\"]"), -1, -32602, "invalid type: sequence, expected struct FsReadFileParams"},
    {"type-params-string", HOSTILE_BOTH, REQ("process/start", "\"true\""), -1, -32602, "invalid type: string \"true\", expected struct ExecParams"},
    {"type-params-number", HOSTILE_BOTH, REQ("process/read", "1"), -1, -32602, "invalid type: integer `1`, expected struct ReadParams"},
    {"type-params-null", HOSTILE_BOTH, REQ("fs/walk", "null"), -1, -32602, "invalid type: null, expected struct FsWalkParams"},
    {"type-params-bool", HOSTILE_BOTH, REQ("fs/open", "false"), -1, -32602, "invalid type: boolean `false`, expected struct FsOpenParams"},
    {"type-path-number", HOSTILE_BOTH, REQ("fs/getMetadata", "{\"path\":5}"), -1, -32602, "invalid type: integer `5`, expected a string"},
    {"type-path-object", HOSTILE_BOTH, REQ("fs/remove", "{\"path\":{}}"), -1, -32602, "invalid type: map, expected a string"},
    {"type-argv-string", HOSTILE_BOTH, START(",\"argv\":\"true\""), -1, -32602, "invalid type: string \"true\", expected a sequence"},
    {"type-argv-element-number", HOSTILE_BOTH, START(",\"argv\":[1]"), -1, -32602, "invalid type: integer `1`, expected a string"},
    {"type-argv-element-null", HOSTILE_BOTH, START(",\"argv\":[\"true\",null]"), -1, -32602, "invalid type: null, expected a string"},
    {"type-env-array", HOSTILE_BOTH, START(",\"env\":[]"), -1, -32602, "invalid type: sequence, expected a map"},
    {"type-env-value-number", HOSTILE_BOTH, START(",\"env\":{\"A\":1}"), -1, -32602, "invalid type: integer `1`, expected a string"},
    {"type-env-value-object", HOSTILE_BOTH, START(",\"env\":{\"A\":{}}"), -1, -32602, "invalid type: map, expected a string"},
    {"type-env-name-invalid", HOSTILE_BOTH, START(",\"env\":{\"A=B\":\"x\"}"), -1, -32602, "env contains an invalid variable name"},
    {"type-tty-string", HOSTILE_BOTH, START(",\"tty\":\"yes\""), -1, -32602, "invalid type: string \"yes\", expected a boolean"},
    {"type-env-policy-inherit", HOSTILE_BOTH,
     START(",\"envPolicy\":{\"inherit\":1,\"ignoreDefaultExcludes\":false,\"exclude\":[],\"set\":{},\"includeOnly\":[]}"), -1, -32602,
     "invalid type: integer `1`, expected a string"},
    {"type-metadata-array", HOSTILE_BOTH, START(",\"metadata\":[]"), -1, -32602, "invalid type: sequence, expected a map"},
    {"type-snapshot-scope", HOSTILE_BOTH, START(",\"shellSnapshot\":{\"scopeId\":[],\"shell\":{\"name\":\"sh\",\"path\":\"/bin/sh\"}}"), -1,
     -32602, "invalid type: sequence, expected a string"},
    {"type-process-id-number", HOSTILE_BOTH, REQ("process/terminate", "{\"processId\":7}"), -1, -32602, "invalid type: integer `7`, expected a string"},
    {"type-chunk-number", HOSTILE_BOTH, REQ("process/write", "{\"processId\":\"p\",\"chunk\":1,\"writeId\":\"w\"}"), -1, -32602,
     "invalid type: integer `1`, expected a string"},
    {"type-write-id-bool", HOSTILE_BOTH, REQ("process/write", "{\"processId\":\"p\",\"chunk\":\"\",\"writeId\":true}"), -1, -32602,
     "invalid type: boolean `true`, expected a string"},
    {"type-handle-id-array", HOSTILE_BOTH, REQ("fs/close", "{\"handleId\":[]}"), -1, -32602, "invalid type: sequence, expected a string"},
    {"type-mode-number", HOSTILE_BOTH, REQ("fs/open", "{\"handleId\":\"h\",\"path\":\"" NOPE "\",\"mode\":1}"), -1, -32602,
     "invalid type: integer `1`, expected a string"},
    {"type-recursive-string", HOSTILE_BOTH, REQ("fs/copy", "{\"sourcePath\":\"" NOPE "\",\"destinationPath\":\"" NOPE "\",\"recursive\":\"yes\"}"),
     -1, -32602, "invalid type: string \"yes\", expected a boolean"},
    {"type-walk-options-number", HOSTILE_BOTH, REQ("fs/walk", "{\"path\":\"" NOPE "\",\"options\":5}"), -1, -32602,
     "invalid type: integer `5`, expected struct WalkOptions"},
    {"type-walk-depth-string", HOSTILE_BOTH,
     REQ("fs/walk", "{\"path\":\"" NOPE "\",\"options\":{\"maxDepth\":\"1\",\"maxDirectories\":1,\"maxEntries\":1,\"followDirectorySymlinks\":false}}"),
     -1, -32602, "invalid type: string \"1\", expected u64"},
    {"type-missing-string", HOSTILE_BOTH, REQ("fs/watchMissing", "{\"watchId\":1,\"missing\":\"" NOPE "\"}"), -1, -32602,
     "invalid type: string \"" NOPE "\", expected a sequence"},
    {"type-missing-element-number", HOSTILE_BOTH, REQ("fs/watchMissing", "{\"watchId\":1,\"missing\":[5]}"), -1, -32602,
     "invalid type: integer `5`, expected a string"},
    {"type-sandbox-number", HOSTILE_BOTH, REQ("fs/readFile", "{\"path\":\"" NOPE "\",\"sandbox\":5}"), -1, -32602,
     "invalid type: integer `5`, expected struct FileSystemSandboxContext"},
    {"type-sandbox-permissions-string", HOSTILE_BOTH, SANDBOX("\"managed\""), -1, -32602, "invalid type: string \"managed\", expected a map"},
    {"type-sandbox-profile-number", HOSTILE_BOTH, SANDBOX("{\"type\":1}"), -1, -32602, "invalid type: integer `1`, expected a string"},
    {"type-sandbox-entries-object", HOSTILE_BOTH, RESTRICTED("{}"), -1, -32602, "invalid type: map, expected a sequence"},
    {"type-sandbox-entry-path-string", HOSTILE_BOTH, RESTRICTED("[{\"access\":\"read\",\"path\":\"" NOPE "\"}]"), -1, -32602,
     "invalid type: string \"" NOPE "\", expected a map"},
    {"type-sandbox-entry-access-number", HOSTILE_BOTH,
     RESTRICTED("[{\"access\":1,\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"root\"}}}]"), -1, -32602,
     "invalid type: integer `1`, expected a string"},
    {"type-start-sandbox-level", HOSTILE_BOTH, START(",\"sandbox\":{\"permissions\":{\"type\":\"disabled\"},\"windowsSandboxLevel\":[]}"), -1,
     -32602, "invalid type: sequence, expected a string"},

    /* sizes, partial input and peers that go away */
    {"oversized-message", HOSTILE_BOTH, NULL, 0, 0, NULL, hostile_oversized_message},
    {"oversized-fragments", HOSTILE_WS, NULL, 0, 0, NULL, hostile_oversized_fragments},
    {"half-frame", HOSTILE_WS, NULL, 0, 0, NULL, hostile_half_frame},
    {"half-upgrade", HOSTILE_WS, NULL, 0, 0, NULL, hostile_half_upgrade},
    {"half-line", HOSTILE_STDIO, NULL, 0, 0, NULL, hostile_half_line},
    {"bad-frame-unmasked", HOSTILE_WS | HOSTILE_CLOSE, "\x81\x02{}", 4, 0, NULL, hostile_bad_frame},
    {"bad-frame-reserved-bits", HOSTILE_WS | HOSTILE_CLOSE, "\xc1\x82\0\0\0\0{}", 8, 0, NULL, hostile_bad_frame},
    {"bad-frame-opcode", HOSTILE_WS | HOSTILE_CLOSE, "\x83\x82\0\0\0\0{}", 8, 0, NULL, hostile_bad_frame},
    {"bad-frame-continuation", HOSTILE_WS | HOSTILE_CLOSE, "\x80\x82\0\0\0\0{}", 8, 0, NULL, hostile_bad_frame},
    {"bad-frame-long-ping", HOSTILE_WS | HOSTILE_CLOSE, "\x89\xfe\0\x80\0\0\0\0", 8, 0, NULL, hostile_bad_frame},
    {"vanish-mid-frame", HOSTILE_BOTH | HOSTILE_CLOSE, NULL, 0, 0, NULL, hostile_vanish_mid_frame},
    {"vanish-mid-request", HOSTILE_BOTH | HOSTILE_CLOSE, NULL, 0, 0, NULL, hostile_vanish_mid_request},
};
/* clang-format on */

G_END_DECLS
