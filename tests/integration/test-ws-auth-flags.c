/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "esd-test-utils.h"

/*
 * The WebSocket authentication and TLS flags: each refused combination with
 * the message `codex exec-server` 0.171.0 prints (PROTOCOL.md §2) and its
 * exit status (2 for a refused value, as clap; 1 otherwise), nothing on
 * stdout, and never the content of a secret file.
 */

#define FLAGS_TEST "/execserverd/integration/ws-auth-flags/"

#define TOKEN	     "capability-token-8f1d2c3b4a"
#define TOKEN_SHA256 "6632ee30131d86e25f68afc6398ef9486e0a0ac53c4bf2d2e40064f604be9bc7"
#define SECRET	     "jwt-shared-secret-5e6f7a8b9c0d1e2f3a4b5c6d"

static gchar *scratch = NULL;

typedef struct {
	const gchar *name;
	const gchar *args[12];
	gint status;
	const gchar *message; /* @DIR@ is the scratch directory */
} FlagCase;

#define CAP "--ws-auth", "capability-token"
#define JWT "--ws-auth", "signed-bearer-token"

static const FlagCase flag_cases[] = {
    {"token-required",
     {CAP},
     1,
     "`--ws-token-file` or `--ws-token-sha256` is required when `--ws-auth capability-token` is "
     "set"},
    {"token-exclusive",
     {CAP, "--ws-token-file", "@DIR@/token", "--ws-token-sha256", TOKEN_SHA256},
     1,
     "`--ws-token-file` and `--ws-token-sha256` are mutually exclusive"},
    {"token-with-issuer",
     {CAP, "--ws-token-file", "@DIR@/token", "--ws-issuer", "x"},
     1,
     "`--ws-shared-secret-file`, `--ws-issuer`, `--ws-audience`, and `--ws-max-clock-skew-seconds` "
     "require `--ws-auth signed-bearer-token`"},
    {"token-with-skew",
     {CAP, "--ws-token-sha256", TOKEN_SHA256, "--ws-max-clock-skew-seconds", "5"},
     1,
     "`--ws-shared-secret-file`, `--ws-issuer`, `--ws-audience`, and `--ws-max-clock-skew-seconds` "
     "require `--ws-auth signed-bearer-token`"},
    {"sha256-short",
     {CAP, "--ws-token-sha256", "abc"},
     1,
     "--ws-token-sha256 must be a 64-character hex SHA-256 digest"},
    {"sha256-not-hex",
     {CAP, "--ws-token-sha256", "zz00000000000000000000000000000000000000000000000000000000000000"},
     1,
     "--ws-token-sha256 must be a 64-character hex SHA-256 digest"},
    {"secret-required",
     {JWT},
     1,
     "`--ws-shared-secret-file` is required when `--ws-auth signed-bearer-token` is set"},
    {"jwt-with-token",
     {JWT, "--ws-shared-secret-file", "@DIR@/secret", "--ws-token-file", "@DIR@/token"},
     1,
     "`--ws-token-file` and `--ws-token-sha256` require `--ws-auth capability-token`, not "
     "`signed-bearer-token`"},
    {"no-mode-token",
     {"--ws-token-file", "@DIR@/token"},
     1,
     "websocket auth flags require `--ws-auth capability-token` or `--ws-auth "
     "signed-bearer-token`"},
    {"no-mode-audience",
     {"--ws-audience", "x"},
     1,
     "websocket auth flags require `--ws-auth capability-token` or `--ws-auth "
     "signed-bearer-token`"},
    {"bad-mode", {"--ws-auth", "bogus"}, 2, "invalid value 'bogus' for '--ws-auth <MODE>'"},
    {"mode-twice", {CAP, CAP}, 2, "the argument '--ws-auth <MODE>' cannot be used multiple times"},
    {"empty-path",
     {CAP, "--ws-token-file", ""},
     2,
     "a value is required for '--ws-token-file <PATH>' but none was supplied"},
    {"skew-text",
     {JWT, "--ws-max-clock-skew-seconds", "abc"},
     2,
     "invalid value 'abc' for '--ws-max-clock-skew-seconds <SECONDS>': invalid digit found in "
     "string"},
    {"skew-negative",
     {JWT, "--ws-max-clock-skew-seconds", "-1"},
     2,
     "invalid value '-1' for '--ws-max-clock-skew-seconds <SECONDS>': invalid digit found in "
     "string"},
    {"skew-u64-overflow",
     {JWT, "--ws-max-clock-skew-seconds", "18446744073709551616"},
     2,
     "number too large to fit in target type"},
    {"skew-i64-overflow",
     {JWT,
      "--ws-shared-secret-file",
      "@DIR@/secret",
      "--ws-max-clock-skew-seconds",
      "9223372036854775808"},
     1,
     "websocket auth clock skew must fit in a signed 64-bit integer"},
    {"stdio",
     {"--listen", "stdio", CAP, "--ws-token-file", "@DIR@/missing"},
     1,
     "WebSocket auth requires a WebSocket listener, not stdio"},
    {"token-file-missing",
     {CAP, "--ws-token-file", "@DIR@/missing"},
     1,
     "failed to read websocket auth secret @DIR@/missing: No such file or directory (os error 2)"},
    {"token-file-directory",
     {CAP, "--ws-token-file", "@DIR@"},
     1,
     "failed to read websocket auth secret @DIR@: Is a directory (os error 21)"},
    {"token-file-empty",
     {CAP, "--ws-token-file", "@DIR@/blank"},
     1,
     "websocket auth secret @DIR@/blank must not be empty"},
    {"secret-short",
     {JWT, "--ws-shared-secret-file", "@DIR@/token"},
     1,
     "signed websocket bearer secret @DIR@/token must be at least 32 bytes"},
    {"tls-key-alone",
     {"--tls-key", "@DIR@/key.pem"},
     1,
     "`--tls-certificate` and `--tls-key` must be given together"},
    {"wss-without-tls",
     {"--listen", "wss://127.0.0.1:0"},
     1,
     "--listen wss://127.0.0.1:0 requires `--tls-certificate` and `--tls-key`"},
    {"tls-without-wss",
     {"--tls-certificate", "@DIR@/cert.pem", "--tls-key", "@DIR@/key.pem"},
     1,
     "`--tls-certificate` and `--tls-key` require a `--listen wss://IP:PORT` listener"},
    {"tls-missing-file",
     {"--listen",
      "wss://127.0.0.1:0",
      "--tls-certificate",
      "@DIR@/missing",
      "--tls-key",
      "@DIR@/key.pem"},
     1,
     "cannot load the TLS certificate @DIR@/missing with the key @DIR@/key.pem: "},
    {NULL},
};

static gchar *
expand_dir(const gchar *text)
{
	g_auto(GStrv) parts = g_strsplit(text, "@DIR@", -1);
	return g_strjoinv(scratch, parts);
}

static void
test_flags(gconstpointer user_data)
{
	const FlagCase *row = user_data;
	g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func(g_free);
	g_autofree gchar *message = expand_dir(row->message);
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;
	gint status;

	for (guint i = 0; row->args[i] != NULL; i++)
		g_ptr_array_add(args, expand_dir(row->args[i]));
	g_ptr_array_add(args, NULL);
	status = esd_test_run_daemon((const gchar *const *)args->pdata, &out, &err);
	if (strstr(err, message) == NULL)
		g_error("stderr does not say \"%s\": \"%s\"", message, err);
	g_assert_true(g_str_has_prefix(err, "execserverd: "));
	g_assert_cmpint(status, ==, row->status);
	g_assert_cmpstr(out, ==, "");
	g_assert_null(strstr(err, TOKEN));
	g_assert_null(strstr(err, SECRET));
}

/* the ws plugin's options: with every plugin's by --help-all, alone by --help-ws */
static void
test_help(gconstpointer user_data)
{
	const gchar *args[] = {user_data, NULL};
	const gchar *options[] = {"--ws-auth=MODE",
				  "--ws-token-file=PATH",
				  "--ws-token-sha256=HEX",
				  "--ws-shared-secret-file=PATH",
				  "--ws-issuer=ISSUER",
				  "--ws-audience=AUDIENCE",
				  "--ws-max-clock-skew-seconds=SECONDS",
				  "--tls-certificate=PEM",
				  "--tls-key=PEM",
				  NULL};
	g_autofree gchar *out = NULL;

	g_assert_cmpint(esd_test_run_daemon(args, &out, NULL), ==, 0);
	for (guint i = 0; options[i] != NULL; i++) {
		if (strstr(out, options[i]) == NULL)
			g_error("--help does not mention %s:\n%s", options[i], out);
	}
}

static void
write_scratch(const gchar *name, const gchar *content)
{
	g_autofree gchar *path = g_build_filename(scratch, name, NULL);
	g_autoptr(GError) error = NULL;

	g_file_set_contents(path, content, -1, &error);
	g_assert_no_error(error);
}

int
main(int argc, char **argv)
{
	const gchar *files[] = {"token", "secret", "blank", "key.pem"};
	g_autoptr(GError) error = NULL;
	gint ret;

	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	signal(SIGPIPE, SIG_IGN);
	scratch = g_dir_make_tmp("esd-ws-auth-flags-XXXXXX", &error);
	g_assert_no_error(error);
	write_scratch("token", TOKEN "\n");
	write_scratch("secret", SECRET "\n");
	write_scratch("blank", " \n\t\n");
	/* never loaded: the certificate next to it is missing */
	write_scratch("key.pem", "");
	g_test_add_data_func(FLAGS_TEST "help-all", "--help-all", test_help);
	g_test_add_data_func(FLAGS_TEST "help-ws", "--help-ws", test_help);
	for (const FlagCase *row = flag_cases; row->name != NULL; row++) {
		g_autofree gchar *path = g_strconcat(FLAGS_TEST, row->name, NULL);
		g_test_add_data_func(path, row, test_flags);
	}
	ret = g_test_run();
	for (guint i = 0; i < G_N_ELEMENTS(files); i++) {
		g_autofree gchar *path = g_build_filename(scratch, files[i], NULL);
		g_unlink(path);
	}
	g_rmdir(scratch);
	g_free(scratch);
	return ret;
}
