/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <execrpc.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "esd-discovery-skill.h"

/*
 * The YAML of skills, read with libyaml: the front matter of a SKILL.md
 * (between a first line `---` and the next `---` line) and the skill's
 * `agents/openai.yaml`. A document becomes a JsonNode: mappings with scalar
 * keys, sequences, and plain scalars typed as YAML 1.2's core schema types
 * them (null, booleans, integers); quoted scalars stay strings. Aliases are
 * expanded, so the conversion is bounded in depth and in nodes made: a
 * "billion laughs" document fails instead of growing.
 */

#define ESD_DISCOVERY_YAML_MAX_DEPTH 64
#define ESD_DISCOVERY_YAML_MAX_NODES 100000
/* the reference leaves out a skill with a longer name */
#define ESD_DISCOVERY_SKILL_NAME_MAX 64

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(yaml_parser_t, yaml_parser_delete)
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(yaml_document_t, yaml_document_delete)

void
esd_discovery_skill_meta_clear(EsdDiscoverySkillMeta *meta)
{
	g_clear_pointer(&meta->name, g_free);
	g_clear_pointer(&meta->description, g_free);
	g_clear_pointer(&meta->short_description, g_free);
}

static gboolean
esd_discovery_yaml_is(const gchar *value, const gchar *const *words)
{
	return g_strv_contains(words, value);
}

/* a plain scalar as the core schema types it */
static JsonNode *
esd_discovery_yaml_scalar(const gchar *value, gsize len, gboolean plain, gboolean typed)
{
	static const gchar *const nulls[] = {"null", "Null", "NULL", "~", NULL};
	static const gchar *const trues[] = {"true", "True", "TRUE", NULL};
	static const gchar *const falses[] = {"false", "False", "FALSE", NULL};
	JsonNode *node;

	if (plain && (len == 0 || esd_discovery_yaml_is(value, nulls)))
		return json_node_new(JSON_NODE_NULL);
	plain = plain && typed;
	if (plain && esd_discovery_yaml_is(value, trues))
		return json_node_init_boolean(json_node_alloc(), TRUE);
	if (plain && esd_discovery_yaml_is(value, falses))
		return json_node_init_boolean(json_node_alloc(), FALSE);
	if (plain && g_regex_match_simple("^[-+]?[0-9]+$", value, 0, 0)) {
		gchar *end = NULL;
		gint64 number = g_ascii_strtoll(value, &end, 10);
		if (end != NULL && *end == '\0')
			return json_node_init_int(json_node_alloc(), number);
	}
	node = json_node_alloc();
	json_node_init_string(node, NULL);
	/* a NUL in the scalar (an escaped \0) ends the string, as a C string would */
	json_node_set_string(node, value);
	return node;
}

typedef struct {
	yaml_document_t *document;
	guint nodes;
	gboolean typed; /* plain scalars typed; else only nulls are, the rest stay text */
} EsdDiscoveryYaml;

static JsonNode *
esd_discovery_yaml_node(EsdDiscoveryYaml *yaml, yaml_node_t *node, guint depth, GError **error)
{
	if (node == NULL || depth > ESD_DISCOVERY_YAML_MAX_DEPTH ||
	    ++yaml->nodes > ESD_DISCOVERY_YAML_MAX_NODES) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "the YAML document is too large or too deep");
		return NULL;
	}
	switch (node->type) {
	case YAML_SCALAR_NODE:
		return esd_discovery_yaml_scalar((const gchar *)node->data.scalar.value,
						 node->data.scalar.length,
						 node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE,
						 yaml->typed);
	case YAML_SEQUENCE_NODE: {
		g_autoptr(JsonArray) array = json_array_new();
		for (yaml_node_item_t *item = node->data.sequence.items.start;
		     item < node->data.sequence.items.top;
		     item++) {
			JsonNode *child =
			    esd_discovery_yaml_node(yaml,
						    yaml_document_get_node(yaml->document, *item),
						    depth + 1,
						    error);
			if (child == NULL)
				return NULL;
			json_array_add_element(array, child);
		}
		return json_node_init_array(json_node_alloc(), array);
	}
	case YAML_MAPPING_NODE: {
		g_autoptr(JsonObject) obj = json_object_new();
		for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
		     pair < node->data.mapping.pairs.top;
		     pair++) {
			yaml_node_t *key = yaml_document_get_node(yaml->document, pair->key);
			JsonNode *value;
			if (key == NULL || key->type != YAML_SCALAR_NODE) {
				g_set_error_literal(error,
						    ERPC_ERROR,
						    ERPC_ERROR_INVALID_PARAMS,
						    "a mapping key is not a scalar");
				return NULL;
			}
			value = esd_discovery_yaml_node(
			    yaml,
			    yaml_document_get_node(yaml->document, pair->value),
			    depth + 1,
			    error);
			if (value == NULL)
				return NULL;
			json_object_set_member(obj, (const gchar *)key->data.scalar.value, value);
		}
		return json_node_init_object(json_node_alloc(), obj);
	}
	case YAML_NO_NODE:
	default:
		return json_node_new(JSON_NODE_NULL);
	}
}

/* the document as JSON, plain scalars typed or left as text */
static JsonNode *
esd_discovery_yaml_parse_full(const gchar *text, gsize len, gboolean typed, GError **error)
{
	g_auto(yaml_parser_t) parser = {0};
	g_auto(yaml_document_t) document = {0};
	EsdDiscoveryYaml yaml = {&document, 0, typed};
	yaml_node_t *root;

	if (!yaml_parser_initialize(&parser)) {
		g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_INTERNAL, "out of memory");
		return NULL;
	}
	yaml_parser_set_input_string(&parser, (const guchar *)text, len);
	if (!yaml_parser_load(&parser, &document)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "malformed YAML: %s",
			    parser.problem != NULL ? parser.problem : "unknown error");
		/* yaml_parser_load() leaves nothing to delete when it fails */
		memset(&document, 0, sizeof(document));
		return NULL;
	}
	root = yaml_document_get_root_node(&document);
	if (root == NULL)
		return json_node_new(JSON_NODE_NULL);
	return esd_discovery_yaml_node(&yaml, root, 0, error);
}

/**
 * esd_discovery_yaml_parse:
 * @text: one YAML document
 * @len: its length
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): the document as JSON (`null` when empty), or
 *   %NULL with @error for malformed YAML
 */
JsonNode *
esd_discovery_yaml_parse(const gchar *text, gsize len, GError **error)
{
	return esd_discovery_yaml_parse_full(text, len, TRUE, error);
}

/* the end of the line at @p (its `\n` or the end of the text) */
static const gchar *
esd_discovery_line_end(const gchar *p, const gchar *end)
{
	const gchar *nl = memchr(p, '\n', (gsize)(end - p));
	return nl != NULL ? nl : end;
}

/* whether the line [@p, @eol) is a `---` delimiter (blanks and `\r` around it allowed) */
static gboolean
esd_discovery_is_delimiter(const gchar *p, const gchar *eol)
{
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	if (eol - p < 3 || strncmp(p, "---", 3) != 0)
		return FALSE;
	for (p += 3; p < eol; p++) {
		if (*p != ' ' && *p != '\t' && *p != '\r')
			return FALSE;
	}
	return TRUE;
}

/* absent, null or a string (a scalar's text) */
static gboolean
esd_discovery_is_text(JsonNode *node)
{
	return node == NULL || JSON_NODE_HOLDS_NULL(node) ||
	       (JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == G_TYPE_STRING);
}

/* the text of @node without the white space around it, or NULL */
static gchar *
esd_discovery_trimmed(JsonNode *node)
{
	if (node == NULL || !JSON_NODE_HOLDS_VALUE(node) ||
	    json_node_get_value_type(node) != G_TYPE_STRING)
		return NULL;
	return g_strstrip(g_strdup(json_node_get_string(node)));
}

static gchar *
esd_discovery_string_member(JsonObject *obj, const gchar *member)
{
	JsonNode *node = obj != NULL ? json_object_get_member(obj, member) : NULL;

	if (node == NULL || !JSON_NODE_HOLDS_VALUE(node) ||
	    json_node_get_value_type(node) != G_TYPE_STRING)
		return NULL;
	return g_strdup(json_node_get_string(node));
}

/**
 * esd_discovery_front_matter_parse:
 * @text: a SKILL.md
 * @len: its length
 * @meta: (out caller-allocates): its name, description and short description
 * @error: return location for a #GError, or %NULL
 *
 * The reference's rules: scalars are read as their text, `name`,
 * `description` and the short description are trimmed, the description
 * must not be empty, the name at most 64 characters, `metadata` a mapping.
 *
 * Returns: %FALSE when there is no front matter, it is not a YAML mapping,
 *   or it breaks one of the rules
 */
gboolean
esd_discovery_front_matter_parse(const gchar *text,
				 gsize len,
				 EsdDiscoverySkillMeta *meta,
				 GError **error)
{
	const gchar *end = text + len;
	const gchar *eol = esd_discovery_line_end(text, end);
	const gchar *body;
	const gchar *p;
	g_autoptr(JsonNode) root = NULL;
	JsonObject *obj;
	JsonNode *metadata;
	JsonNode *description;
	JsonNode *name;

	memset(meta, 0, sizeof(*meta));
	if (!esd_discovery_is_delimiter(text, eol) || eol == end) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "no front matter");
		return FALSE;
	}
	body = eol + 1;
	for (p = body; p < end;) {
		const gchar *line_end = esd_discovery_line_end(p, end);
		if (esd_discovery_is_delimiter(p, line_end))
			break;
		p = line_end < end ? line_end + 1 : end;
	}
	if (p >= end) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "the front matter is not closed");
		return FALSE;
	}
	/* as the reference reads them, a number or a boolean is its text */
	root = esd_discovery_yaml_parse_full(body, (gsize)(p - body), FALSE, error);
	if (root == NULL)
		return FALSE;
	if (!JSON_NODE_HOLDS_OBJECT(root)) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "the front matter is not a mapping");
		return FALSE;
	}
	obj = json_node_get_object(root);
	name = json_object_get_member(obj, "name");
	description = json_object_get_member(obj, "description");
	metadata = json_object_get_member(obj, "metadata");
	if (!esd_discovery_is_text(name) || !esd_discovery_is_text(description) ||
	    (metadata != NULL && !JSON_NODE_HOLDS_NULL(metadata) &&
	     !JSON_NODE_HOLDS_OBJECT(metadata))) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "`name`, `description` or `metadata` has the wrong type");
		return FALSE;
	}
	meta->name = esd_discovery_trimmed(name);
	meta->description = esd_discovery_trimmed(description);
	if (meta->description == NULL || meta->description[0] == '\0') {
		esd_discovery_skill_meta_clear(meta);
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "missing field `description`");
		return FALSE;
	}
	if (meta->name != NULL && g_utf8_strlen(meta->name, -1) > ESD_DISCOVERY_SKILL_NAME_MAX) {
		esd_discovery_skill_meta_clear(meta);
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "`name` is longer than %u characters",
			    ESD_DISCOVERY_SKILL_NAME_MAX);
		return FALSE;
	}
	if (metadata != NULL && JSON_NODE_HOLDS_OBJECT(metadata)) {
		JsonNode *short_description =
		    json_object_get_member(json_node_get_object(metadata), "short-description");
		if (esd_discovery_is_text(short_description))
			meta->short_description = esd_discovery_trimmed(short_description);
	}
	return TRUE;
}

static JsonNode *
esd_discovery_nullable_string(JsonObject *obj, const gchar *member)
{
	g_autofree gchar *value = esd_discovery_string_member(obj, member);

	if (value == NULL)
		return json_node_new(JSON_NODE_NULL);
	return json_node_init_string(json_node_alloc(), value);
}

/* one `dependencies.tools` item in the protocol's shape; NULL when it has no type or value */
static JsonNode *
esd_discovery_tool(JsonNode *node)
{
	g_autoptr(JsonObject) out = json_object_new();
	JsonObject *obj;
	JsonNode *port;
	g_autofree gchar *type = NULL;
	g_autofree gchar *value = NULL;

	if (!JSON_NODE_HOLDS_OBJECT(node))
		return NULL;
	obj = json_node_get_object(node);
	type = esd_discovery_string_member(obj, "type");
	value = esd_discovery_string_member(obj, "value");
	if (type == NULL || value == NULL)
		return NULL;
	json_object_set_string_member(out, "type", type);
	json_object_set_string_member(out, "value", value);
	json_object_set_member(out,
			       "description",
			       esd_discovery_nullable_string(obj, "description"));
	json_object_set_member(out, "transport", esd_discovery_nullable_string(obj, "transport"));
	json_object_set_member(out, "command", esd_discovery_nullable_string(obj, "command"));
	json_object_set_member(out, "url", esd_discovery_nullable_string(obj, "url"));
	port = json_object_get_member(obj, "oauth_callback_port");
	if (port != NULL && JSON_NODE_HOLDS_VALUE(port) &&
	    json_node_get_value_type(port) == G_TYPE_INT64 && json_node_get_int(port) >= 0 &&
	    json_node_get_int(port) <= G_MAXUINT16)
		json_object_set_int_member(out, "oauthCallbackPort", json_node_get_int(port));
	else
		json_object_set_null_member(out, "oauthCallbackPort");
	return json_node_init_object(json_node_alloc(), out);
}

static JsonNode *
esd_discovery_dependencies(JsonNode *node)
{
	g_autoptr(JsonObject) out = json_object_new();
	g_autoptr(JsonArray) tools = json_array_new();
	JsonNode *items;

	if (node == NULL || !JSON_NODE_HOLDS_OBJECT(node))
		return json_node_new(JSON_NODE_NULL);
	items = json_object_get_member(json_node_get_object(node), "tools");
	if (items != NULL && JSON_NODE_HOLDS_ARRAY(items)) {
		JsonArray *array = json_node_get_array(items);
		for (guint i = 0; i < json_array_get_length(array); i++) {
			JsonNode *tool = esd_discovery_tool(json_array_get_element(array, i));
			if (tool != NULL)
				json_array_add_element(tools, tool);
		}
	}
	json_object_set_array_member(out, "tools", g_steal_pointer(&tools));
	return json_node_init_object(json_node_alloc(), out);
}

static JsonNode *
esd_discovery_policy(JsonNode *node)
{
	g_autoptr(JsonObject) out = json_object_new();
	g_autoptr(JsonArray) products = json_array_new();
	JsonObject *obj;
	JsonNode *allow;
	JsonNode *items;

	if (node == NULL || !JSON_NODE_HOLDS_OBJECT(node))
		return json_node_new(JSON_NODE_NULL);
	obj = json_node_get_object(node);
	allow = json_object_get_member(obj, "allow_implicit_invocation");
	if (allow != NULL && JSON_NODE_HOLDS_VALUE(allow) &&
	    json_node_get_value_type(allow) == G_TYPE_BOOLEAN)
		json_object_set_boolean_member(out,
					       "allowImplicitInvocation",
					       json_node_get_boolean(allow));
	else
		json_object_set_null_member(out, "allowImplicitInvocation");
	items = json_object_get_member(obj, "products");
	if (items != NULL && JSON_NODE_HOLDS_ARRAY(items)) {
		JsonArray *array = json_node_get_array(items);
		for (guint i = 0; i < json_array_get_length(array); i++) {
			JsonNode *item = json_array_get_element(array, i);
			if (JSON_NODE_HOLDS_VALUE(item) &&
			    json_node_get_value_type(item) == G_TYPE_STRING)
				json_array_add_string_element(products, json_node_get_string(item));
		}
	}
	json_object_set_array_member(out, "products", g_steal_pointer(&products));
	return json_node_init_object(json_node_alloc(), out);
}

/**
 * esd_discovery_skill_metadata_parse:
 * @text: an `agents/openai.yaml`
 * @len: its length
 * @dependencies: (out) (transfer full): the skill's `dependencies`, or a `null` node
 * @policy: (out) (transfer full): the skill's `policy`, or a `null` node
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE for malformed YAML (both are then `null` nodes)
 */
gboolean
esd_discovery_skill_metadata_parse(const gchar *text,
				   gsize len,
				   JsonNode **dependencies,
				   JsonNode **policy,
				   GError **error)
{
	g_autoptr(JsonNode) root = esd_discovery_yaml_parse(text, len, error);
	JsonObject *obj;

	*dependencies = json_node_new(JSON_NODE_NULL);
	*policy = json_node_new(JSON_NODE_NULL);
	if (root == NULL)
		return FALSE;
	if (!JSON_NODE_HOLDS_OBJECT(root))
		return TRUE;
	obj = json_node_get_object(root);
	json_node_unref(*dependencies);
	json_node_unref(*policy);
	*dependencies = esd_discovery_dependencies(json_object_get_member(obj, "dependencies"));
	*policy = esd_discovery_policy(json_object_get_member(obj, "policy"));
	return TRUE;
}
