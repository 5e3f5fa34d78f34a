/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "erpc-error.h"
#include "erpc-registry-private.h"

typedef struct {
	ErpcRegistry *registry;
	guint freed;
} Fixture;

static void
fixture_setup(Fixture *fixture, gconstpointer user_data)
{
	fixture->registry = erpc_registry_new();
	fixture->freed = 0;
}

static void
fixture_teardown(Fixture *fixture, gconstpointer user_data)
{
	g_assert_finalize_object(fixture->registry);
}

static void
test_method_func(ErpcCall *call, JsonObject *params, gpointer user_data)
{
}

static void
test_other_method_func(ErpcCall *call, JsonObject *params, gpointer user_data)
{
}

static void
test_count_free(gpointer user_data)
{
	Fixture *fixture = user_data;
	fixture->freed++;
}

static gboolean
test_add_method(Fixture *fixture,
		const gchar *name,
		const gchar *capability,
		guint since_version,
		GError **error)
{
	ErpcMethodInfo info = {
	    .name = name,
	    .capability = capability,
	    .since_version = since_version,
	    .func = test_method_func,
	};
	return erpc_registry_add_method(fixture->registry, &info, fixture, test_count_free, error);
}

/* checks and frees a list of names */
static void
test_assert_list(GPtrArray *names_owned, const gchar *expected)
{
	g_autoptr(GString) joined = g_string_new(NULL);
	g_autoptr(GPtrArray) names = names_owned;

	for (guint i = 0; i < names->len; i++) {
		if (i > 0)
			g_string_append_c(joined, ' ');
		g_string_append(joined, g_ptr_array_index(names, i));
	}
	g_assert_cmpstr(joined->str, ==, expected);
}

static void
test_registry_method(Fixture *fixture, gconstpointer user_data)
{
	gchar name[] = "fs/readFile";
	gchar family[] = "filesystem";
	gchar params_type[] = "ReadFileParams";
	ErpcMethodInfo info = {
	    .name = name,
	    .family = family,
	    .params_type = params_type,
	    .flags = ERPC_METHOD_FLAG_PRE_INIT,
	    .func = test_other_method_func,
	};
	g_autoptr(GError) error = NULL;
	const ErpcMethodInfo *found;
	gpointer user_data_out = NULL;

	g_assert_true(erpc_registry_add_method(fixture->registry, &info, fixture, NULL, &error));
	g_assert_no_error(error);

	/* the info is copied */
	name[0] = 'X';
	family[0] = 'X';
	params_type[0] = 'X';

	found = erpc_registry_lookup_method(fixture->registry, "fs/readFile", &user_data_out);
	g_assert_nonnull(found);
	g_assert_true(user_data_out == fixture);
	g_assert_cmpstr(found->name, ==, "fs/readFile");
	g_assert_cmpstr(found->family, ==, "filesystem");
	g_assert_cmpstr(found->params_type, ==, "ReadFileParams");
	g_assert_null(found->capability);
	g_assert_cmpint(found->flags, ==, ERPC_METHOD_FLAG_PRE_INIT);
	g_assert_true(found->func == test_other_method_func);
	g_assert_nonnull(erpc_registry_lookup_method(fixture->registry, "fs/readFile", NULL));

	g_assert_null(erpc_registry_lookup_method(fixture->registry, "fs/writeFile", NULL));
	g_assert_null(erpc_registry_lookup_method(fixture->registry, "", NULL));
	g_assert_null(erpc_registry_lookup_method(fixture->registry, "FS/READFILE", NULL));
}

static void
test_registry_method_family_default(Fixture *fixture, gconstpointer user_data)
{
	g_autoptr(GError) error = NULL;
	const ErpcMethodInfo *found;

	g_assert_true(test_add_method(fixture, "environment/info", NULL, 0, &error));
	g_assert_no_error(error);
	found = erpc_registry_lookup_method(fixture->registry, "environment/info", NULL);
	g_assert_nonnull(found);
	g_assert_cmpstr(found->family, ==, "environment/info");
	g_assert_null(found->params_type);
}

static void
test_registry_method_duplicate(Fixture *fixture, gconstpointer user_data)
{
	g_autoptr(GError) error = NULL;
	ErpcMethodInfo info = {.name = "fs/readFile", .func = test_other_method_func};
	gpointer user_data_out = NULL;

	erpc_registry_set_owner(fixture->registry, "plugin-a");
	g_assert_true(test_add_method(fixture, "fs/readFile", NULL, 0, &error));
	g_assert_no_error(error);

	erpc_registry_set_owner(fixture->registry, "plugin-b");
	g_assert_false(erpc_registry_add_method(fixture->registry, &info, NULL, NULL, &error));
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_EXISTS);
	g_assert_cmpstr(error->message,
			==,
			"method fs/readFile of plugin-b is already registered by plugin-a");
	g_clear_error(&error);

	/* the first registration is untouched */
	g_assert_true(
	    erpc_registry_lookup_method(fixture->registry, "fs/readFile", &user_data_out)->func ==
	    test_method_func);
	g_assert_true(user_data_out == fixture);

	/* the core is named "core" */
	erpc_registry_set_owner(fixture->registry, NULL);
	g_assert_false(erpc_registry_add_method(fixture->registry, &info, NULL, NULL, &error));
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_EXISTS);
	g_assert_cmpstr(error->message,
			==,
			"method fs/readFile of core is already registered by plugin-a");
}

static void
test_registry_method_user_data_free(Fixture *fixture, gconstpointer user_data)
{
	g_autoptr(GError) error = NULL;

	g_assert_true(test_add_method(fixture, "a", NULL, 0, &error));
	g_assert_true(test_add_method(fixture, "b", NULL, 0, &error));
	g_assert_no_error(error);
	g_assert_cmpuint(fixture->freed, ==, 0);
	g_clear_object(&fixture->registry);
	g_assert_cmpuint(fixture->freed, ==, 2);
	fixture->registry = erpc_registry_new();
}

static void
test_registry_capability(Fixture *fixture, gconstpointer user_data)
{
	g_autoptr(GError) error = NULL;

	g_assert_cmpuint(erpc_registry_get_capability_version(fixture->registry, "c"), ==, 0);
	erpc_registry_set_owner(fixture->registry, "plugin-a");
	g_assert_true(erpc_registry_add_capability(fixture->registry, "c", 3, &error));
	g_assert_no_error(error);
	g_assert_cmpuint(erpc_registry_get_capability_version(fixture->registry, "c"), ==, 3);
	g_assert_cmpuint(erpc_registry_get_capability_version(fixture->registry, "C"), ==, 0);

	erpc_registry_set_owner(fixture->registry, "plugin-b");
	g_assert_false(erpc_registry_add_capability(fixture->registry, "c", 4, &error));
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_EXISTS);
	g_assert_cmpstr(error->message,
			==,
			"capability c of plugin-b is already registered by plugin-a");
	g_clear_error(&error);
	g_assert_cmpuint(erpc_registry_get_capability_version(fixture->registry, "c"), ==, 3);

	g_assert_false(erpc_registry_add_capability(fixture->registry, "d", 0, &error));
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_REQUEST);
	g_assert_cmpstr(error->message, ==, "capability d of plugin-b has version 0");
	g_assert_cmpuint(erpc_registry_get_capability_version(fixture->registry, "d"), ==, 0);
}

static void
test_registry_gating(Fixture *fixture, gconstpointer user_data)
{
	g_autoptr(GError) error = NULL;

	g_assert_true(test_add_method(fixture, "fs/watchMissing", "c", 2, &error));
	g_assert_true(test_add_method(fixture, "fs/old", "c", 1, &error));
	g_assert_no_error(error);

	/* capability not registered: both hidden */
	g_assert_null(erpc_registry_lookup_method(fixture->registry, "fs/watchMissing", NULL));
	g_assert_null(erpc_registry_lookup_method(fixture->registry, "fs/old", NULL));

	/* version 1: only the method since version 1 */
	erpc_registry_set_owner(fixture->registry, "caps-v1");
	g_assert_true(erpc_registry_add_capability(fixture->registry, "c", 1, &error));
	g_assert_no_error(error);
	g_assert_null(erpc_registry_lookup_method(fixture->registry, "fs/watchMissing", NULL));
	g_assert_nonnull(erpc_registry_lookup_method(fixture->registry, "fs/old", NULL));

	/* listing is not gated */
	test_assert_list(erpc_registry_list_methods(fixture->registry, NULL),
			 "fs/old fs/watchMissing");

	/* version 2: both */
	erpc_registry_remove_owner(fixture->registry, "caps-v1");
	erpc_registry_set_owner(fixture->registry, "caps-v2");
	g_assert_true(erpc_registry_add_capability(fixture->registry, "c", 2, &error));
	g_assert_no_error(error);
	g_assert_nonnull(erpc_registry_lookup_method(fixture->registry, "fs/watchMissing", NULL));
	g_assert_nonnull(erpc_registry_lookup_method(fixture->registry, "fs/old", NULL));

	/* gone with its owner */
	erpc_registry_remove_owner(fixture->registry, "caps-v2");
	g_assert_null(erpc_registry_lookup_method(fixture->registry, "fs/watchMissing", NULL));
}

static void
test_registry_extension(Fixture *fixture, gconstpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) all = NULL;

	erpc_registry_set_owner(fixture->registry, "plugin-a");
	g_assert_true(erpc_registry_add_extension(fixture->registry,
						  "transport",
						  "ws",
						  G_TYPE_OBJECT,
						  10,
						  &error));
	g_assert_true(erpc_registry_add_extension(fixture->registry,
						  "transport",
						  "stdio",
						  G_TYPE_INITIALLY_UNOWNED,
						  5,
						  &error));
	erpc_registry_set_owner(fixture->registry, "plugin-b");
	g_assert_true(erpc_registry_add_extension(fixture->registry,
						  "transport",
						  "unix",
						  G_TYPE_BINDING,
						  20,
						  &error));
	g_assert_true(erpc_registry_add_extension(fixture->registry,
						  "listener",
						  "ws",
						  G_TYPE_APPLICATION,
						  100,
						  &error));
	g_assert_no_error(error);

	/* by name */
	g_assert_true(erpc_registry_lookup_extension(fixture->registry, "transport", "ws") ==
		      G_TYPE_OBJECT);
	g_assert_true(erpc_registry_lookup_extension(fixture->registry, "transport", "stdio") ==
		      G_TYPE_INITIALLY_UNOWNED);
	g_assert_true(erpc_registry_lookup_extension(fixture->registry, "listener", "ws") ==
		      G_TYPE_APPLICATION);
	g_assert_true(erpc_registry_lookup_extension(fixture->registry, "transport", "tcp") ==
		      G_TYPE_INVALID);
	g_assert_true(erpc_registry_lookup_extension(fixture->registry, "other", "ws") ==
		      G_TYPE_INVALID);

	/* by priority, within the point */
	g_assert_true(erpc_registry_lookup_extension(fixture->registry, "transport", NULL) ==
		      G_TYPE_BINDING);
	g_assert_true(erpc_registry_lookup_extension(fixture->registry, "listener", NULL) ==
		      G_TYPE_APPLICATION);
	g_assert_true(erpc_registry_lookup_extension(fixture->registry, "other", NULL) ==
		      G_TYPE_INVALID);

	/* the same name twice in one point is refused, in another point it is not */
	g_assert_false(erpc_registry_add_extension(fixture->registry,
						   "transport",
						   "ws",
						   G_TYPE_OBJECT,
						   1,
						   &error));
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_EXISTS);
	g_assert_cmpstr(error->message,
			==,
			"transport extension ws of plugin-b is already registered by plugin-a");

	all = erpc_registry_list_extensions(fixture->registry, NULL, NULL);
	g_assert_cmpuint(all->len, ==, 4);
	g_assert_true(g_ptr_array_find_with_equal_func(all, "transport:unix", g_str_equal, NULL));
	g_assert_true(g_ptr_array_find_with_equal_func(all, "listener:ws", g_str_equal, NULL));
}

static void
test_registry_extension_tie(Fixture *fixture, gconstpointer user_data)
{
	g_autoptr(GError) error = NULL;

	/* equal priorities: the first registration wins */
	g_assert_true(
	    erpc_registry_add_extension(fixture->registry, "p", "first", G_TYPE_OBJECT, 0, &error));
	g_assert_true(erpc_registry_add_extension(fixture->registry,
						  "p",
						  "second",
						  G_TYPE_BINDING,
						  0,
						  &error));
	g_assert_true(erpc_registry_add_extension(fixture->registry,
						  "p",
						  "negative",
						  G_TYPE_APPLICATION,
						  -10,
						  &error));
	g_assert_no_error(error);
	g_assert_true(erpc_registry_lookup_extension(fixture->registry, "p", NULL) ==
		      G_TYPE_OBJECT);
}

static void
test_registry_remove_owner(Fixture *fixture, gconstpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) ext_a = NULL;
	guint freed;

	erpc_registry_set_owner(fixture->registry, "plugin-a");
	g_assert_true(test_add_method(fixture, "a/one", NULL, 0, &error));
	g_assert_true(test_add_method(fixture, "a/two", "cap-a", 1, &error));
	g_assert_true(erpc_registry_add_capability(fixture->registry, "cap-a", 1, &error));
	g_assert_true(erpc_registry_add_extension(fixture->registry,
						  "transport",
						  "a",
						  G_TYPE_OBJECT,
						  50,
						  &error));
	erpc_registry_set_owner(fixture->registry, "plugin-b");
	g_assert_true(test_add_method(fixture, "b/one", NULL, 0, &error));
	g_assert_true(erpc_registry_add_capability(fixture->registry, "cap-b", 2, &error));
	g_assert_true(erpc_registry_add_extension(fixture->registry,
						  "transport",
						  "b",
						  G_TYPE_BINDING,
						  1,
						  &error));
	erpc_registry_set_owner(fixture->registry, NULL);
	g_assert_true(test_add_method(fixture, "core/one", NULL, 0, &error));
	g_assert_no_error(error);

	test_assert_list(erpc_registry_list_methods(fixture->registry, "plugin-a"), "a/one a/two");
	test_assert_list(erpc_registry_list_methods(fixture->registry, "core"), "core/one");
	g_assert_true(erpc_registry_lookup_extension(fixture->registry, "transport", NULL) ==
		      G_TYPE_OBJECT);

	freed = fixture->freed;
	erpc_registry_remove_owner(fixture->registry, "plugin-a");
	/* the user data of both removed methods is freed */
	g_assert_cmpuint(fixture->freed, ==, freed + 2);

	g_assert_null(erpc_registry_lookup_method(fixture->registry, "a/one", NULL));
	g_assert_null(erpc_registry_lookup_method(fixture->registry, "a/two", NULL));
	g_assert_nonnull(erpc_registry_lookup_method(fixture->registry, "b/one", NULL));
	g_assert_nonnull(erpc_registry_lookup_method(fixture->registry, "core/one", NULL));
	g_assert_cmpuint(erpc_registry_get_capability_version(fixture->registry, "cap-a"), ==, 0);
	g_assert_cmpuint(erpc_registry_get_capability_version(fixture->registry, "cap-b"), ==, 2);
	g_assert_true(erpc_registry_lookup_extension(fixture->registry, "transport", "a") ==
		      G_TYPE_INVALID);
	g_assert_true(erpc_registry_lookup_extension(fixture->registry, "transport", NULL) ==
		      G_TYPE_BINDING);

	ext_a = erpc_registry_list_extensions(fixture->registry, NULL, "plugin-a");
	g_assert_cmpuint(ext_a->len, ==, 0);
	test_assert_list(erpc_registry_list_extensions(fixture->registry, "transport", "plugin-b"),
			 "transport:b");
	test_assert_list(erpc_registry_list_methods(fixture->registry, "plugin-a"), "");
	test_assert_list(erpc_registry_list_capabilities(fixture->registry, NULL), "cap-b");

	/* the names are free again */
	erpc_registry_set_owner(fixture->registry, "plugin-c");
	g_assert_true(test_add_method(fixture, "a/one", NULL, 0, &error));
	g_assert_true(erpc_registry_add_capability(fixture->registry, "cap-a", 5, &error));
	g_assert_no_error(error);

	/* removing an owner without registrations is harmless */
	erpc_registry_remove_owner(fixture->registry, "nobody");
	test_assert_list(erpc_registry_list_methods(fixture->registry, NULL),
			 "a/one b/one core/one");
}

static void
test_registry_lists_sorted(Fixture *fixture, gconstpointer user_data)
{
	const gchar *methods[] =
	    {"zeta", "fs/readFile", "alpha", "process/start", "fs/copy", "Beta"};
	const gchar *caps[] = {"zz", "fsWatchMissing", "aa", "httpRequest"};
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) empty_ext = NULL;

	test_assert_list(erpc_registry_list_methods(fixture->registry, NULL), "");
	test_assert_list(erpc_registry_list_capabilities(fixture->registry, NULL), "");
	empty_ext = erpc_registry_list_extensions(fixture->registry, NULL, NULL);
	g_assert_cmpuint(empty_ext->len, ==, 0);

	for (guint i = 0; i < G_N_ELEMENTS(methods); i++) {
		erpc_registry_set_owner(fixture->registry, i % 2 == 0 ? "even" : "odd");
		g_assert_true(test_add_method(fixture, methods[i], NULL, 0, &error));
		g_assert_no_error(error);
	}
	for (guint i = 0; i < G_N_ELEMENTS(caps); i++) {
		erpc_registry_set_owner(fixture->registry, i % 2 == 0 ? "even" : "odd");
		g_assert_true(
		    erpc_registry_add_capability(fixture->registry, caps[i], i + 1, &error));
		g_assert_no_error(error);
	}
	test_assert_list(erpc_registry_list_methods(fixture->registry, NULL),
			 "Beta alpha fs/copy fs/readFile process/start zeta");
	test_assert_list(erpc_registry_list_methods(fixture->registry, "even"),
			 "alpha fs/copy zeta");
	test_assert_list(erpc_registry_list_methods(fixture->registry, "odd"),
			 "Beta fs/readFile process/start");
	test_assert_list(erpc_registry_list_methods(fixture->registry, "none"), "");
	test_assert_list(erpc_registry_list_capabilities(fixture->registry, NULL),
			 "aa fsWatchMissing httpRequest zz");
	test_assert_list(erpc_registry_list_capabilities(fixture->registry, "odd"),
			 "fsWatchMissing httpRequest");
}

/* options: the daemon's settings for plugins, typed */
static void
test_registry_options(Fixture *fixture, gconstpointer user_data)
{
	GVariant *value;

	g_assert_null(erpc_registry_get_option(fixture->registry, "n", G_VARIANT_TYPE_UINT32));
	erpc_registry_set_option(fixture->registry, "n", g_variant_new_uint32(7));
	value = erpc_registry_get_option(fixture->registry, "n", G_VARIANT_TYPE_UINT32);
	g_assert_nonnull(value);
	g_assert_cmpuint(g_variant_get_uint32(value), ==, 7);
	/* another type reads as unset */
	g_assert_null(erpc_registry_get_option(fixture->registry, "n", G_VARIANT_TYPE_STRING));
	erpc_registry_set_option(fixture->registry, "n", NULL);
	g_assert_null(erpc_registry_get_option(fixture->registry, "n", G_VARIANT_TYPE_UINT32));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

	g_test_add("/execserverd/libexecrpc/registry/method",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_registry_method,
		   fixture_teardown);
	g_test_add("/execserverd/libexecrpc/registry/method-family-default",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_registry_method_family_default,
		   fixture_teardown);
	g_test_add("/execserverd/libexecrpc/registry/method-duplicate",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_registry_method_duplicate,
		   fixture_teardown);
	g_test_add("/execserverd/libexecrpc/registry/method-user-data-free",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_registry_method_user_data_free,
		   fixture_teardown);
	g_test_add("/execserverd/libexecrpc/registry/capability",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_registry_capability,
		   fixture_teardown);
	g_test_add("/execserverd/libexecrpc/registry/gating",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_registry_gating,
		   fixture_teardown);
	g_test_add("/execserverd/libexecrpc/registry/extension",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_registry_extension,
		   fixture_teardown);
	g_test_add("/execserverd/libexecrpc/registry/extension-tie",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_registry_extension_tie,
		   fixture_teardown);
	g_test_add("/execserverd/libexecrpc/registry/remove-owner",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_registry_remove_owner,
		   fixture_teardown);
	g_test_add("/execserverd/libexecrpc/registry/lists-sorted",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_registry_lists_sorted,
		   fixture_teardown);

	g_test_add("/execserverd/libexecrpc/registry/options",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_registry_options,
		   fixture_teardown);
	return g_test_run();
}
