/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-test-utils.h"

G_BEGIN_DECLS

/*
 * The rows of test-hostile.c: hostile input and the answer the daemon gives
 * today, over WebSocket and stdio. Every request has id 7; paths point
 * below /nonexistent-esd-hostile, so that a check that let a request through
 * would fail the row (-32004) instead of touching anything. A request whose
 * envelope can be read is answered with its own id, whatever is wrong in
 * it; the NUL, escape and number rows carry the answers of the reference
 * (Codex exec-server 0.171.0) to the same requests, except that it answers
 * the HOSTILE_REFUSED ones with id -1.
 */

typedef enum {
	HOSTILE_WS = 1 << 0,	/* run over WebSocket */
	HOSTILE_STDIO = 1 << 1, /* run over stdio */
	HOSTILE_MALFORMED =
	    1 << 2,		  /* id -1, -32600, the transport's parse error prefix + message */
	HOSTILE_CLOSE = 1 << 3,	  /* the connection ends without a reply */
	HOSTILE_REFUSED = 1 << 4, /* id 7, -32600, the transport's parse error prefix + message */
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
	const gchar *reply;   /* the exact reply text, instead of @code and @message */
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
/* without duplicate members, which the reference refuses */
#define START5(argv, cwd, env, tty, members) REQ("process/start", "{\"processId\":\"p\",\"argv\":" argv ",\"cwd\":\"" cwd "\",\"env\":" env ",\"tty\":" tty members "}")
#define START(members) REQ("process/start", "{\"processId\":\"p\",\"argv\":[\"true\"],\"cwd\":\"" NOPE "\",\"env\":{},\"tty\":false" members "}")
#define READ_FILE(path) REQ("fs/readFile", "{\"path\":\"" path "\"}")
#define SANDBOX(permissions) REQ("fs/readFile", "{\"path\":\"" NOPE "\",\"sandbox\":{\"windowsSandboxLevel\":\"disabled\",\"permissions\":" permissions "}}")
#define RESTRICTED(entries) SANDBOX("{\"type\":\"managed\",\"network\":\"restricted\",\"file_system\":{\"type\":\"restricted\",\"entries\":" entries "}}")
#define NOT_UTF8 "message is not valid UTF-8 or contains a NUL byte"
#define CONTROL "control character (\\u0000-\\u001F) found while parsing a string at line 1 column "
#define NO_BASE "invalid URI: relative URL without a base"
#define ON_LINUX(uri) "'" uri "' is invalid on 'linux'"
#define REPLY_ERROR(code, message) "{\"error\":{\"code\":" #code ",\"message\":\"" message "\"},\"id\":7}"
#define SPAWN_FAILED(message) "{\"error\":{\"code\":-32603,\"data\":{\"kind\":\"spawnFailed\"},\"message\":\"" message "\"},\"id\":7}"
#define ARGV_NUL SPAWN_FAILED("nul byte found in provided data")
#define ENV_NUL SPAWN_FAILED("data provided contains a nul byte")
#define NOT_FOUND "No such file or directory (os error 2)"
#define POLICY(set) ",\"envPolicy\":{\"inherit\":\"none\",\"ignoreDefaultExcludes\":false,\"exclude\":[],\"set\":" set ",\"includeOnly\":[]}"

#define PROCESS_READ(params) REQ("process/read", params)
#define READ_BLOCK(params) REQ("fs/readBlock", params)
#define WRITE_BLOCK(params) REQ("fs/writeBlock", params)
#define WATCH_MISSING(params) REQ("fs/watchMissing", params)
#define WALK(params) REQ("fs/walk", params)

/* a u64 member, between @before and @after in what @wrap makes: negative, fractional, 1e400, 2^64 */
#define U64_ROWS(name, wrap, before, after) \
    {name "-negative", HOSTILE_BOTH, wrap(before "-1" after), -1, -32602, "invalid value: integer `-1`, expected u64"}, \
    {name "-fraction", HOSTILE_BOTH, wrap(before "0.5" after), -1, -32602, "invalid type: floating point `0.5`, expected u64"}, \
    {name "-1e400", HOSTILE_BOTH, wrap(before "1e400" after), -1, -32602, "invalid number"}, \
    {name "-1e-400", HOSTILE_BOTH, wrap(before "1e-400" after), -1, -32602, "invalid number"}, \
    {name "-2e64", HOSTILE_BOTH, wrap(before "18446744073709551616" after), -1, -32602, \
     "invalid type: floating point `18446744073709552000.0`, expected u64"}

static const HostileCase hostile_cases[] = {
    /* malformed UTF-8 in a string: the request is refused with its id */
    {"utf8-in-string", HOSTILE_BOTH | HOSTILE_REFUSED, READ_FILE(NOPE "/\xff"), -1, 0, NOT_UTF8},
    {"utf8-in-member-name", HOSTILE_BOTH | HOSTILE_REFUSED, REQ("fs/readFile", "{\"pa\xfeth\":\"" NOPE "\"}"), -1, 0, NOT_UTF8},
    {"utf8-overlong", HOSTILE_BOTH | HOSTILE_REFUSED, READ_FILE(NOPE "/\xc0\xaf"), -1, 0, NOT_UTF8},
    {"utf8-overlong-nul", HOSTILE_BOTH | HOSTILE_REFUSED, READ_FILE(NOPE "/a\xc0\x80"), -1, 0, NOT_UTF8},
    {"utf8-surrogate", HOSTILE_BOTH | HOSTILE_REFUSED, START(",\"arg0\":\"\xed\xa0\x80\""), -1, 0, NOT_UTF8},
    {"utf8-truncated", HOSTILE_BOTH | HOSTILE_REFUSED, REQ("process/read", "{\"processId\":\"\xe2\x82\"}"), -1, 0, NOT_UTF8},
    {"utf8-in-env-name", HOSTILE_BOTH | HOSTILE_REFUSED, START(",\"env\":{\"A\x80\":\"x\"}"), -1, 0, NOT_UTF8},
    {"utf8-in-method", HOSTILE_BOTH | HOSTILE_REFUSED, REQ("fs/read\xff", "{}"), -1, 0, NOT_UTF8},
    /* outside a string, nothing can be read */
    {"utf8-outside-string", HOSTILE_BOTH | HOSTILE_MALFORMED, "{\"id\":7,\xff\"method\":\"fs/readFile\"}", -1, 0, NOT_UTF8},

    /* escapes the reference's parser refuses: the request is refused with its id */
    {"escape-lone-surrogate-in-path", HOSTILE_BOTH | HOSTILE_REFUSED, READ_FILE(NOPE "/\\ud800"), -1, 0,
     "unexpected end of hex escape at line 1 column 88"},
    {"escape-lone-low-surrogate-in-path", HOSTILE_BOTH | HOSTILE_REFUSED, READ_FILE(NOPE "/\\udc00x"), -1, 0,
     "lone leading surrogate in hex escape at line 1 column 87"},
    {"escape-two-high-surrogates", HOSTILE_BOTH | HOSTILE_REFUSED, READ_FILE(NOPE "/\\ud800\\ud800"), -1, 0,
     "lone leading surrogate in hex escape at line 1 column 93"},
    {"escape-lone-surrogate-in-argv", HOSTILE_BOTH | HOSTILE_REFUSED, START5("[\"/bin/\\ud800\"]", NOPE, "{}", "false", ""), -1, 0,
     "unexpected end of hex escape at line 1 column 80"},
    {"escape-lone-surrogate-in-env-name", HOSTILE_BOTH | HOSTILE_REFUSED, START5("[\"true\"]", NOPE, "{\"\\ud800\":\"x\"}", "false", ""), -1, 0,
     "unexpected end of hex escape at line 1 column 130"},
    {"escape-lone-surrogate-in-env-value", HOSTILE_BOTH | HOSTILE_REFUSED, START5("[\"true\"]", NOPE, "{\"A\":\"\\udfff\"}", "false", ""), -1, 0,
     "lone leading surrogate in hex escape at line 1 column 133"},
    {"escape-lone-surrogate-in-member-name", HOSTILE_BOTH | HOSTILE_REFUSED, REQ("fs/readFile", "{\"pa\\ud800th\":\"" NOPE "\"}"), -1, 0,
     "unexpected end of hex escape at line 1 column 51"},
    {"escape-lone-surrogate-in-method", HOSTILE_BOTH | HOSTILE_REFUSED, REQ("fs/re\\udfffadFile", "{}"), -1, 0,
     "lone leading surrogate in hex escape at line 1 column 29"},
    {"escape-lone-surrogate-in-unknown-member", HOSTILE_BOTH | HOSTILE_REFUSED,
     "{\"id\":7,\"method\":\"fs/readFile\",\"params\":{\"path\":\"" NOPE "\"},\"x\":\"\\ud800\"}", -1, 0,
     "unexpected end of hex escape at line 1 column 95"},
    {"escape-lone-surrogate-in-trace", HOSTILE_BOTH | HOSTILE_REFUSED,
     "{\"id\":7,\"method\":\"environment/status\",\"trace\":{\"traceparent\":\"\\ud800\"}}", -1, 0,
     "unexpected end of hex escape at line 1 column 69"},
    {"escape-unknown", HOSTILE_BOTH | HOSTILE_REFUSED, READ_FILE(NOPE "/\\q"), -1, 0, "invalid escape at line 1 column 83"},
    {"escape-short-unicode", HOSTILE_BOTH | HOSTILE_REFUSED, READ_FILE(NOPE "/\\u12"), -1, 0, "invalid escape at line 1 column 87"},
    {"escape-octal", HOSTILE_BOTH | HOSTILE_REFUSED, START5("[\"\\101\"]", NOPE, "{}", "false", ""), -1, 0, "invalid escape at line 1 column 70"},
    {"control-raw-in-argv", HOSTILE_BOTH | HOSTILE_REFUSED, START5("[\"a\x01\"]", NOPE, "{}", "false", ""), -1, 0, CONTROL "70"},
    {"control-raw-tab-in-path", HOSTILE_BOTH | HOSTILE_REFUSED, READ_FILE(NOPE "/a\tb"), -1, 0, CONTROL "83"},
    /* the id itself cannot be read: id -1 */
    {"escape-lone-surrogate-in-id", HOSTILE_BOTH | HOSTILE_MALFORMED, "{\"id\":\"\\ud800\",\"method\":\"environment/status\"}", -1, 0,
     "unexpected end of hex escape at line 1 column 14"},
    {"control-raw-in-id", HOSTILE_BOTH | HOSTILE_MALFORMED, "{\"id\":\"\x01\",\"method\":\"environment/status\"}", -1, 0,
     CONTROL "8"},

    /* NUL bytes, raw and escaped, wherever a string reaches the system */
    {"nul-raw-in-path", HOSTILE_BOTH | HOSTILE_REFUSED, READ_FILE(NOPE "/a\0b"), sizeof(READ_FILE(NOPE "/a\0b")) - 1, 0, CONTROL "83"},
    {"nul-raw-in-argv", HOSTILE_BOTH | HOSTILE_REFUSED, START5("[\"tr\0ue\"]", NOPE, "{}", "false", ""), sizeof(START5("[\"tr\0ue\"]", NOPE, "{}", "false", "")) - 1, 0, CONTROL "71"},
    {"nul-raw-in-env-value", HOSTILE_BOTH | HOSTILE_REFUSED, START5("[\"true\"]", NOPE, "{\"A\":\"x\0\"}", "false", ""), sizeof(START5("[\"true\"]", NOPE, "{\"A\":\"x\0\"}", "false", "")) - 1, 0, CONTROL "129"},
    {"nul-raw-in-handle-id", HOSTILE_BOTH | HOSTILE_REFUSED, REQ("fs/close", "{\"handleId\":\"\0\"}"), sizeof(REQ("fs/close", "{\"handleId\":\"\0\"}")) - 1, 0, CONTROL "51"},
    {"nul-raw-outside-string", HOSTILE_BOTH | HOSTILE_MALFORMED, "{\"id\":7,\0\"method\":\"x\"}", sizeof("{\"id\":7,\0\"method\":\"x\"}") - 1, 0, NOT_UTF8},
    {"nul-escaped-in-path", HOSTILE_BOTH, READ_FILE(NOPE "/a\\u0000b"), -1, -32602, ON_LINUX(NOPE "/a%00b")},
    {"nul-escaped-trailing-in-path", HOSTILE_BOTH, READ_FILE(NOPE "/a\\u0000"), -1, -32004, NOT_FOUND},
    {"nul-escaped-in-path-removed", HOSTILE_BOTH, READ_FILE(NOPE "/a\\u0000b/../c"), -1, -32004, NOT_FOUND},
    {"nul-escaped-in-host", HOSTILE_BOTH, READ_FILE("file://h\\u0000/x"), -1, -32602, "invalid URI: invalid international domain name"},
    {"nul-escaped-in-cwd", HOSTILE_BOTH, START5("[\"true\"]", "file:///tmp\\u0000/x", "{}", "false", ""), -1, -32602, ON_LINUX("file:///tmp%00/x")},
    {"nul-escaped-in-argv0", HOSTILE_BOTH, START5("[\"/bin/true\\u0000x\"]", NOPE, "{}", "false", ""), -1, 0, NULL, NULL, ARGV_NUL},
    {"nul-escaped-in-argv1", HOSTILE_BOTH, START5("[\"true\",\"a\\u0000b\"]", NOPE, "{}", "false", ""), -1, 0, NULL, NULL, ARGV_NUL},
    {"nul-escaped-in-argv0-tty", HOSTILE_BOTH, START5("[\"/bin/sh\\u0000x\"]", "file:///tmp", "{}", "true", ""), -1, 0, NULL, NULL, ARGV_NUL},
    /* a terminal looks the name up on PATH, where no file has one */
    {"nul-escaped-in-program-tty", HOSTILE_BOTH, START5("[\"sh\\u0000\"]", "file:///tmp", "{\"PATH\":\"/bin:/usr/bin\"}", "true", ""), -1, 0,
     NULL, NULL, SPAWN_FAILED("Unable to spawn sh\\u0000 because:\\nNo viable candidates found in PATH \\\"/bin:/usr/bin\\\"")},
    {"nul-escaped-in-program-tty-no-path", HOSTILE_BOTH, START5("[\"sh\\u0000\"]", "file:///tmp", "{}", "true", ""), -1, 0,
     NULL, NULL, SPAWN_FAILED("Unable to spawn sh\\u0000 because:\\nUnable to resolve the PATH")},
    {"nul-escaped-in-arg0", HOSTILE_BOTH, START(",\"arg0\":\"a\\u0000\""), -1, 0, NULL, NULL, ARGV_NUL},
    {"nul-escaped-in-argv-and-env", HOSTILE_BOTH, START5("[\"true\\u0000\"]", NOPE, "{\"A\\u0000\":\"x\"}", "false", ""), -1, 0, NULL, NULL, ARGV_NUL},
    {"nul-escaped-in-env-name", HOSTILE_BOTH, START5("[\"true\"]", NOPE, "{\"A\\u0000B\":\"x\"}", "false", ""), -1, 0, NULL, NULL, ENV_NUL},
    {"nul-escaped-in-env-value", HOSTILE_BOTH, START5("[\"true\"]", NOPE, "{\"A\":\"x\\u0000y\"}", "false", ""), -1, 0, NULL, NULL, ENV_NUL},
    {"nul-escaped-in-env-policy-name", HOSTILE_BOTH, START(POLICY("{\"A\\u0000\":\"b\"}")), -1, 0, NULL, NULL, ENV_NUL},
    {"nul-escaped-in-env-policy-value", HOSTILE_BOTH, START(POLICY("{\"A\":\"b\\u0000\"}")), -1, 0, NULL, NULL, ENV_NUL},
    {"nul-escaped-in-tty", HOSTILE_BOTH, START5("[\"true\"]", NOPE, "{}", "\"a\\u0000\"", ""), -1, -32602, "invalid type: string \"a\\0\", expected a boolean"},
    {"nul-escaped-in-process-id", HOSTILE_BOTH, REQ("process/terminate", "{\"processId\":\"p\\u0000q\"}"), -1, 0, NULL, NULL,
     "{\"id\":7,\"result\":{\"running\":false}}"},
    {"nul-escaped-in-handle-id", HOSTILE_BOTH, REQ("fs/close", "{\"handleId\":\"h\\u0000\"}"), -1, 0, NULL, NULL, "{\"id\":7,\"result\":{}}"},
    {"nul-escaped-in-mode", HOSTILE_BOTH, REQ("fs/open", "{\"handleId\":\"h\",\"path\":\"" NOPE "\",\"mode\":\"read\\u0000\"}"), -1, 0, NULL, NULL,
     REPLY_ERROR(-32602, "unknown variant `read\\u0000`, expected `read` or `replace`")},
    {"nul-escaped-in-base64", HOSTILE_BOTH, REQ("fs/writeFile", "{\"path\":\"" NOPE "/x\",\"dataBase64\":\"QU\\u0000J\"}"), -1, -32600,
     "fs/writeFile requires valid base64 dataBase64: Invalid symbol 0, offset 2."},
    {"nul-escaped-in-chunk", HOSTILE_BOTH, REQ("process/write", "{\"processId\":\"p\",\"chunk\":\"\\u0000\",\"writeId\":\"w\"}"), -1, -32602,
     "Invalid symbol 0, offset 0."},
    {"nul-escaped-in-copy-destination", HOSTILE_BOTH,
     REQ("fs/copy", "{\"sourcePath\":\"" NOPE "\",\"destinationPath\":\"" NOPE "/a\\u0000b\",\"recursive\":true}"), -1, -32602,
     ON_LINUX(NOPE "/a%00b")},
    {"nul-escaped-in-watch-present", HOSTILE_BOTH, REQ("fs/watchMissing", "{\"watchId\":1,\"missing\":[],\"present\":\"" NOPE "/\\u0000x\"}"),
     -1, -32602, ON_LINUX(NOPE "/%00x")},
    {"nul-escaped-in-sandbox-path", HOSTILE_BOTH, RESTRICTED("[{\"access\":\"read\",\"path\":{\"type\":\"path\",\"path\":\"" NOPE "/a\\u0000b\"}}]"),
     -1, -32602, ON_LINUX(NOPE "/a%00b")},
    {"nul-escaped-in-sandbox-glob", HOSTILE_BOTH, RESTRICTED("[{\"access\":\"deny\",\"path\":{\"type\":\"glob_pattern\",\"pattern\":\"/tmp/*\\u0000\"}}]"),
     -1, -32602, "nul byte found in provided data"},
    {"nul-escaped-in-sandbox-subpath", HOSTILE_BOTH,
     RESTRICTED("[{\"access\":\"read\",\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"tmpdir\",\"subpath\":\"a\\u0000\"}}}]"),
     -1, -32602, "nul byte found in provided data"},
    {"nul-percent-in-path", HOSTILE_BOTH, READ_FILE(NOPE "/a%00b"), -1, -32602, ON_LINUX(NOPE "/a%00b")},
    {"nul-percent-in-cwd", HOSTILE_BOTH, START5("[\"true\"]", "file:///tmp%00", "{}", "false", ""), -1, -32602, ON_LINUX("file:///tmp%00")},
    /* NUL in the envelope and in member names: read as a character like any other */
    {"nul-escaped-in-id", HOSTILE_BOTH, "{\"id\":\"a\\u0000b\",\"method\":\"fs/readFile\",\"params\":{\"path\":\"" NOPE "\"}}", -1, 0, NULL, NULL,
     "{\"error\":{\"code\":-32004,\"message\":\"" NOT_FOUND "\"},\"id\":\"a\\u0000b\"}"},
    {"nul-escaped-in-method", HOSTILE_BOTH, REQ("fs/readFile\\u0000", "{}"), -1, 0, NULL, NULL,
     REPLY_ERROR(-32601, "exec-server stub does not implement `fs/readFile\\u0000` yet")},
    {"nul-escaped-in-member-name", HOSTILE_BOTH, REQ("fs/readFile", "{\"path\\u0000x\":\"" NOPE "\"}"), -1, -32602, "missing field `path`"},
    {"nul-escaped-in-unknown-member", HOSTILE_BOTH, REQ("fs/readFile", "{\"path\":\"" NOPE "\",\"pa\\u0000th\":\"\\u0000\"}"), -1, -32004, NOT_FOUND},
    {"nul-escaped-in-top-level-member", HOSTILE_BOTH,
     "{\"id\":7,\"method\":\"fs/readFile\",\"params\":{\"path\":\"" NOPE "\"},\"x\\u0000\":\"\\u0000\"}", -1, -32004, NOT_FOUND},

    /* numbers no double holds: read as numbers of no value */
    {"number-wide-unknown-member", HOSTILE_BOTH, REQ("fs/readFile", "{\"path\":\"" NOPE "\",\"x\":[1e400,-1e999]}"), -1, -32004, NOT_FOUND},
    {"number-wide-top-level-member", HOSTILE_BOTH,
     "{\"id\":7,\"method\":\"fs/readFile\",\"params\":{\"path\":\"" NOPE "\"},\"x\":1e999}", -1, -32004, NOT_FOUND},
    {"number-wide-as-boolean", HOSTILE_BOTH, START5("[\"true\"]", NOPE, "{}", "1e400", ""), -1, -32602, "invalid type: number, expected a boolean"},
    {"number-wide-as-string", HOSTILE_BOTH, REQ("process/read", "{\"processId\":1e400}"), -1, -32602, "invalid type: number, expected a string"},
    {"number-wide-id", HOSTILE_BOTH | HOSTILE_MALFORMED, "{\"id\":1e400,\"method\":\"environment/status\"}", -1, 0,
     "data did not match any variant of untagged enum RequestId"},

    /* URIs that are not absolute local file URIs */
    {"uri-http", HOSTILE_BOTH, READ_FILE("http://127.0.0.1/x"), -1, -32602, "unsupported path URI scheme `http`"},
    {"uri-scheme-case", HOSTILE_BOTH, READ_FILE("HTTPS://x/y"), -1, -32602, "unsupported path URI scheme `https`"},
    {"uri-file-relative", HOSTILE_BOTH, READ_FILE("file:relative"), -1, -32602, "invalid URI: file:relative is not absolute"},
    {"uri-file-host", HOSTILE_BOTH, READ_FILE("file://host/path"), -1, -32600, "'file://host/path' is invalid on 'linux'"},
    {"uri-relative-path", HOSTILE_BOTH, READ_FILE("relative/x"), -1, -32602, NO_BASE},
    {"uri-absolute-path", HOSTILE_BOTH, READ_FILE("/nonexistent-esd-hostile"), -1, -32602, NO_BASE},
    {"uri-empty", HOSTILE_BOTH, READ_FILE(""), -1, -32602, NO_BASE},
    /* a malformed escape is kept as it is */
    {"uri-bad-escape", HOSTILE_BOTH, READ_FILE(NOPE "/%zz"), -1, -32004, NOT_FOUND},
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
    /* the reference reads metadata from a generic value: `number`, and a struct may be an array */
    {"type-metadata-string", HOSTILE_BOTH, START(",\"metadata\":\"x\""), -1, -32602, "invalid type: string \"x\", expected struct ExecMetadata"},
    {"type-metadata-array", HOSTILE_BOTH, START(",\"metadata\":[1,2,3]"), -1, -32602, "invalid length 3, expected fewer elements in array"},
    {"type-metadata-tool-call", HOSTILE_BOTH, START(",\"metadata\":{\"toolCallId\":7}"), -1, -32602, "invalid type: number, expected a string"},
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
