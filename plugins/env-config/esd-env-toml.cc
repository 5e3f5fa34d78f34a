/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

/*
 * TOML for environmentConfig/read: toml++ parses the file and formats every
 * scalar (strings, integers, dates, keys); this file walks the tree to
 * project it to the selected key paths and lays the result out as the
 * reference's serializer does: a table's plain values first, then its
 * tables as [a.b] sections and its arrays of tables as [[a.b]], inline
 * tables turned into sections, keys in the order of the file, a table's
 * header only when it holds a plain value or nothing.
 */

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "esd-env-toml.h"

/*
 * toml++ 3.3's is_non_ascii_horizontal_whitespace() reaches
 * __builtin_unreachable() for U+00A1..U+0499, which it is asked about for
 * every character of a key it records (a quoted key "ké"): undefined
 * behaviour, found by UBSan in fuzz-env-toml. Its only caller, in
 * unicode.h, calls it with `c`: that call is pointed at the function below,
 * and the header's definition (`char32_t c`) is renamed and left unused.
 */
static constexpr bool
esd_toml_is_non_ascii_horizontal_whitespace(char32_t c) noexcept
{
	return c == U'\xA0' || c == U'\u1680' || c == U'\u180E' ||
	       (c >= U'\u2000' && c <= U'\u200B') || c == U'\u202F' ||
	       (c >= U'\u205F' && c <= U'\u2060') || c == U'\u3000' || c == U'\uFEFF';
}
#define is_non_ascii_horizontal_whitespace(arg) ESD_TOML_WS_##arg)
#define ESD_TOML_WS_c			     esd_toml_is_non_ascii_horizontal_whitespace(c
#define ESD_TOML_WS_char32_t		     esd_toml_unused_non_ascii_horizontal_whitespace(char32_t

/*
 * toml++ 3.3 asserts things about its input that hostile files break (the
 * fuzzer found several; see README.md), and with NDEBUG those assertions
 * become assumptions, i.e. undefined behaviour. Here they are always
 * checked, and a failed one throws: toml::parse() is built with exceptions,
 * so the throw unwinds out of the parser and esd_env_toml_parse() answers
 * the file as invalid (only memory exhaustion can still throw elsewhere).
 */
#undef NDEBUG
struct EsdTomlAssertion {
};
#define TOML_ASSERT(expr) ((expr) ? static_cast<void>(0) : throw EsdTomlAssertion())

#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS	 1
#define TOML_ENABLE_WINDOWS_COMPAT 0
/* the reference refuses arrays nested deeper than 80 */
#define TOML_MAX_NESTED_VALUES ESD_ENV_TOML_MAX_DEPTH
/* a check in one of toml++'s noexcept functions still ends the process,
 * as assert() would: those check its own state, not the input */
#pragma GCC diagnostic push
#ifdef __clang__
#pragma clang diagnostic ignored "-Wexceptions"
#else
#pragma GCC diagnostic ignored "-Wterminate"
#endif
#include <toml++/toml.h>
#pragma GCC diagnostic pop

struct _EsdEnvToml {
	toml::table table;
};

namespace
{

/* the selected key paths, merged: a path that ends here selects everything */
struct Selector {
	bool terminal = false;
	std::map<std::string, Selector, std::less<>> children;

	void
	insert(const gchar *const *path)
	{
		if (terminal)
			return;
		if (path[0] == nullptr) {
			terminal = true;
			children.clear();
			return;
		}
		children[path[0]].insert(path + 1);
	}
};

/* what is kept of a node: all of it, or the selected members of a table */
struct Kept {
	const toml::node *node;
	bool whole;
	std::vector<std::pair<const toml::key *, Kept>> members;
};

using Entry = std::pair<const toml::key *, const toml::node *>;

/* the members of @table in the order they appear in the file (the reference
 * keeps that order; toml++ sorts them by name) */
std::vector<Entry>
ordered(const toml::table &table)
{
	std::vector<Entry> entries;

	entries.reserve(table.size());
	for (auto &&[key, value] : table)
		entries.emplace_back(&key, &value);
	std::stable_sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
		const auto &pa = a.first->source().begin;
		const auto &pb = b.first->source().begin;
		if (pa.line != pb.line)
			return pa.line < pb.line;
		return pa.column < pb.column;
	});
	return entries;
}

Kept
project_node(const toml::node &node, const Selector &selector)
{
	Kept kept{&node, true, {}};

	/* below a value that is not a table the value itself is kept, so that
	 * it still overrides the layers under it */
	if (selector.terminal || !node.is_table())
		return kept;
	kept.whole = false;
	for (const auto &[key, value] : ordered(*node.as_table())) {
		auto child = selector.children.find(key->str());
		if (child != selector.children.end())
			kept.members.emplace_back(key, project_node(*value, child->second));
	}
	return kept;
}

/* the members of a kept table, as Kept */
std::vector<std::pair<const toml::key *, Kept>>
members_of(const Kept &kept)
{
	std::vector<std::pair<const toml::key *, Kept>> members;

	if (!kept.whole)
		return kept.members;
	for (const auto &[key, value] : ordered(*kept.node->as_table()))
		members.emplace_back(key, Kept{value, true, {}});
	return members;
}

bool
is_array_of_tables(const toml::node &node)
{
	const toml::array *array = node.as_array();
	return array != nullptr && !array->empty() && array->is_array_of_tables();
}

bool
is_section(const toml::node &node)
{
	return node.is_table() || is_array_of_tables(node);
}

std::string
format_with(const toml::node &node, toml::format_flags flags)
{
	std::ostringstream out;
	node.visit([&](const auto &value) {
		out << toml::toml_formatter(value, flags);
	});
	return out.str();
}

/* a string as the reference writes it on one line: literal when that saves
 * escaping a quote or a backslash, else basic (multi-line strings are
 * written with \n escapes: toml++ cannot write them safely) */
std::string
format_string(const std::string &str)
{
	bool wants_literal = false;
	bool literal_ok = true;

	for (unsigned char c : str) {
		if (c == '"' || c == '\\')
			wants_literal = true;
		else if (c == '\'' || c < 0x20 || c == 0x7f)
			literal_ok = false;
	}
	toml::value<std::string> value(str);
	if (wants_literal && literal_ok)
		return format_with(value,
				   toml::format_flags::allow_literal_strings |
				       toml::format_flags::allow_unicode_strings);
	return format_with(value, toml::format_flags::allow_unicode_strings);
}

#define ESD_ENV_TOML_MAX_FIXED 100

/* the shortest text that reads back as the same double, never an exponent,
 * as the reference writes floats */
std::string
format_float(double d)
{
	char buf[512];

	if (!std::isfinite(d))
		return format_with(toml::value<double>(d), toml::format_flags::none);
	auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::fixed);
	if (res.ec != std::errc())
		return format_with(toml::value<double>(d), toml::format_flags::none);
	/* toml++ reads no number longer than 126 characters: very large and
	 * very small ones get an exponent (where the reference writes all the
	 * digits) */
	if (res.ptr - buf > ESD_ENV_TOML_MAX_FIXED) {
		res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
		return std::string(buf, res.ptr);
	}
	std::string text(buf, res.ptr);
	if (text.find('.') == std::string::npos)
		text += ".0";
	return text;
}

std::string
format_key(std::string_view key)
{
	bool bare = !key.empty();

	for (unsigned char c : key) {
		if (!g_ascii_isalnum(c) && c != '_' && c != '-') {
			bare = false;
			break;
		}
	}
	if (bare)
		return std::string(key);
	return format_with(toml::value<std::string>(std::string(key)), toml::format_flags::allow_unicode_strings);
}

std::string
format_inline(const toml::node &node);

std::string
format_inline_table(const toml::table &table)
{
	std::string out = "{";
	bool first = true;

	if (table.empty())
		return "{}";
	for (const auto &[key, value] : ordered(table)) {
		out += first ? " " : ", ";
		out += format_key(key->str());
		out += " = ";
		out += format_inline(*value);
		first = false;
	}
	return out + " }";
}

std::string
format_inline(const toml::node &node)
{
	if (const toml::array *array = node.as_array()) {
		std::string out = "[";
		for (size_t i = 0; i < array->size(); i++) {
			if (i > 0)
				out += ", ";
			out += format_inline(*array->get(i));
		}
		return out + "]";
	}
	if (const toml::table *table = node.as_table())
		return format_inline_table(*table);
	if (const toml::value<std::string> *str = node.as_string())
		return format_string(str->get());
	if (const toml::value<double> *d = node.as_floating_point())
		return format_float(d->get());
	return format_with(node, toml::format_flags::none);
}

std::string
format_path(const std::vector<std::string> &path)
{
	std::string out;

	for (size_t i = 0; i < path.size(); i++) {
		if (i > 0)
			out += '.';
		out += format_key(path[i]);
	}
	return out;
}

void
emit_header(std::string &out, const std::string &open, const std::vector<std::string> &path)
{
	if (!out.empty())
		out += '\n';
	out += open;
	out += format_path(path);
	out += open == "[" ? "]\n" : "]]\n";
}

/* the body of a table: plain values, then sections; @header says whether
 * the table's own [path] line may be written (not for the root, nor for an
 * element of an array of tables, whose [[path]] is already there) */
void
emit_table(std::string &out, const Kept &kept, std::vector<std::string> &path, bool header)
{
	auto members = members_of(kept);
	bool has_values = false;

	for (const auto &member : members) {
		if (!is_section(*member.second.node))
			has_values = true;
	}
	if (header && (has_values || members.empty()))
		emit_header(out, "[", path);
	for (const auto &[key, child] : members) {
		if (is_section(*child.node))
			continue;
		out += format_key(key->str());
		out += " = ";
		out += format_inline(*child.node);
		out += '\n';
	}
	for (const auto &[key, child] : members) {
		if (!is_section(*child.node))
			continue;
		path.emplace_back(key->str());
		if (child.node->is_table()) {
			emit_table(out, child, path, true);
		} else {
			for (const toml::node &element : *child.node->as_array()) {
				emit_header(out, "[[", path);
				emit_table(out, Kept{&element, true, {}}, path, false);
			}
		}
		path.pop_back();
	}
}

/* the deepest nesting of @node, without recursing (the depth is what is
 * checked); the node that goes too deep is returned through @where */
bool
check_depth(const toml::node &root, const toml::node **where)
{
	std::vector<std::pair<const toml::node *, size_t>> stack{{&root, 0}};

	while (!stack.empty()) {
		auto [node, depth] = stack.back();
		stack.pop_back();
		if (depth > ESD_ENV_TOML_MAX_DEPTH) {
			*where = node;
			return false;
		}
		if (const toml::table *table = node->as_table()) {
			for (auto &&[key, value] : *table)
				stack.emplace_back(&value, depth + 1);
		} else if (const toml::array *array = node->as_array()) {
			for (const toml::node &value : *array)
				stack.emplace_back(&value, depth + 1);
		}
	}
	return true;
}

bool
is_bare_key_char(char c)
{
	return g_ascii_isalnum(c) || c == '_' || c == '-';
}

/* what follows the `[` of a table header at @i must start a key: toml++ 3.3
 * asserts (or, built with NDEBUG, assumes) that it does */
bool
header_starts_key(std::string_view text, size_t i)
{
	i++;
	if (i < text.size() && text[i] == '[')
		i++;
	while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
		i++;
	return i >= text.size() || is_bare_key_char(text[i]) || text[i] == '"' ||
	       text[i] == '\'' || text[i] == ']';
}

/*
 * What toml++ does not survive, refused before it parses. It limits nested
 * arrays and inline tables, not dotted keys, and recurses through tables:
 * a key of a million dots takes it past the stack. The dots outside strings
 * and comments are counted between the characters that end a key or a
 * value (newline = , [ ] { }); a dotted key or header deeper than the limit
 * is refused there (a float or a time has one dot). A table header (a `[`
 * outside any value) must be followed by a key. Returns FALSE with the
 * position of the offending character and what is wrong in @what.
 */
bool
check_before_parse(std::string_view text, guint *line, guint *column, const char **what)
{
	enum { NORMAL, COMMENT, BASIC, LITERAL, ML_BASIC, ML_LITERAL } state = NORMAL;
	guint dots = 0;
	std::string open;      /* the [ and { of the value being read, still open */
	bool in_value = false; /* after the = of a line's key */

	*line = 1;
	*column = 0;
	for (size_t i = 0; i < text.size(); i++) {
		char c = text[i];

		(*column)++;
		if (c == '\n') {
			(*line)++;
			*column = 0;
		}
		switch (state) {
		case COMMENT:
			if (c == '\n')
				state = NORMAL;
			break;
		case BASIC:
			if (c == '\\')
				i++, (*column)++;
			else if (c == '"' || c == '\n')
				state = NORMAL;
			break;
		case LITERAL:
			if (c == '\'' || c == '\n')
				state = NORMAL;
			break;
		case ML_BASIC:
			if (c == '\\')
				i++, (*column)++;
			else if (text.compare(i, 3, "\"\"\"") == 0)
				state = NORMAL, i += 2, *column += 2;
			break;
		case ML_LITERAL:
			if (text.compare(i, 3, "'''") == 0)
				state = NORMAL, i += 2, *column += 2;
			break;
		case NORMAL:
		default:
			if (c == '#') {
				state = COMMENT;
			} else if (c == '"') {
				if (text.compare(i, 3, "\"\"\"") == 0)
					state = ML_BASIC, i += 2, *column += 2;
				else
					state = BASIC;
			} else if (c == '\'') {
				if (text.compare(i, 3, "'''") == 0)
					state = ML_LITERAL, i += 2, *column += 2;
				else
					state = LITERAL;
			} else if (c == '.') {
				if (++dots >= ESD_ENV_TOML_MAX_DEPTH) {
					*what = "cannot recurse further; max recursion depth met";
					return false;
				}
			} else if (c != '\0' && strchr("\n=,[]{}", c) != nullptr) {
				dots = 0;
				if (c == '=' && open.empty()) {
					in_value = true;
				} else if (c == '[' && !in_value) {
					if (!header_starts_key(text, i)) {
						*what = "a table header must start with a key";
						return false;
					}
				} else if ((c == '[' || c == '{') && in_value) {
					open.push_back(c);
				} else if ((c == ']' || c == '}') && !open.empty()) {
					/* toml++ asserts on `[}` */
					if (open.back() != (c == ']' ? '[' : '{')) {
						*what = c == ']' ? "unexpected `]` in an inline table"
								 : "unexpected `}` in an array";
						return false;
					}
					open.pop_back();
				} else if (c == '\n' && open.empty()) {
					in_value = false;
				}
			}
			break;
		}
	}
	return true;
}

gchar *
dup_string(const std::string &str)
{
	return g_strndup(str.data(), str.size());
}

EsdEnvToml *
esd_env_toml_parse(const gchar *data, gsize len, gchar **error)
{
	const toml::node *deep = nullptr;
	const char *what = nullptr;
	guint line = 0;
	guint column = 0;

	/* no TOML holds a NUL, and toml++ 3.3 asserts on one after a `[` */
	if (const gchar *nul = static_cast<const gchar *>(memchr(data, '\0', len))) {
		line = 1;
		column = 1;
		for (const gchar *p = data; p < nul; p++) {
			if (*p == '\n') {
				line++;
				column = 1;
			} else if ((*p & 0xc0) != 0x80) {
				column++;
			}
		}
		*error = g_strdup_printf("%u:%u: NUL characters are not allowed", line, column);
		return nullptr;
	}
	if (!check_before_parse(std::string_view(data, len), &line, &column, &what)) {
		*error = g_strdup_printf("%u:%u: %s", line, column, what);
		return nullptr;
	}
	try {
		auto *doc = new _EsdEnvToml{toml::parse(std::string_view(data, len))};
		if (!check_depth(doc->table, &deep)) {
			*error = g_strdup_printf(
			    "%u:%u: cannot recurse further; max recursion depth met",
			    (guint)deep->source().begin.line,
			    (guint)deep->source().begin.column);
			delete doc;
			return nullptr;
		}
		return doc;
	} catch (const toml::parse_error &err) {
		*error = g_strdup_printf("%u:%u: %.*s",
					 (guint)err.source().begin.line,
					 (guint)err.source().begin.column,
					 (int)err.description().size(),
					 err.description().data());
	} catch (const EsdTomlAssertion &) {
		/* where the parser was is not known */
		*error = g_strdup("1:1: invalid TOML (a check of the parser failed)");
	} catch (const std::exception &err) {
		*error = g_strdup_printf("1:1: %s", err.what());
	}
	return nullptr;
}

void
esd_env_toml_free(EsdEnvToml *doc)
{
	delete doc;
}

gchar *
esd_env_toml_project(const EsdEnvToml *doc, GPtrArray *paths)
{
	Selector selector;
	std::vector<std::string> path;
	std::string out;

	for (guint i = 0; i < paths->len; i++)
		selector.insert(static_cast<const gchar *const *>(g_ptr_array_index(paths, i)));
	Kept kept = project_node(doc->table, selector);
	/* a layer that keeps nothing is dropped */
	if (!selector.terminal && kept.members.empty())
		return nullptr;
	emit_table(out, kept, path, false);
	return dup_string(out);
}

const toml::node *
lookup(const EsdEnvToml *doc, const gchar *const *path)
{
	const toml::node *node = &doc->table;

	for (guint i = 0; path[i] != nullptr; i++) {
		const toml::table *table = node->as_table();
		if (table == nullptr)
			return nullptr;
		node = table->get(path[i]);
		if (node == nullptr)
			return nullptr;
	}
	return node;
}

gchar *
esd_env_toml_get_string(const EsdEnvToml *doc, const gchar *const *path)
{
	const toml::node *node = lookup(doc, path);

	if (node == nullptr || !node->is_string())
		return nullptr;
	return dup_string(node->as_string()->get());
}

gchar **
esd_env_toml_get_strv(const EsdEnvToml *doc, const gchar *const *path)
{
	const toml::node *node = lookup(doc, path);
	const toml::array *array = node != nullptr ? node->as_array() : nullptr;
	GPtrArray *strv;

	if (array == nullptr)
		return nullptr;
	strv = g_ptr_array_new_full(array->size() + 1, g_free);
	for (const toml::node &element : *array) {
		if (!element.is_string()) {
			g_ptr_array_unref(strv);
			return nullptr;
		}
		g_ptr_array_add(strv, dup_string(element.as_string()->get()));
	}
	g_ptr_array_add(strv, nullptr);
	return reinterpret_cast<gchar **>(g_ptr_array_free(strv, FALSE));
}

void
esd_env_toml_remove(EsdEnvToml *doc, const gchar *const *path)
{
	toml::node *node = &doc->table;

	for (guint i = 0; path[i] != nullptr; i++) {
		toml::table *table = node->as_table();
		if (table == nullptr)
			return;
		if (path[i + 1] == nullptr) {
			table->erase(path[i]);
			return;
		}
		node = table->get(path[i]);
		if (node == nullptr)
			return;
	}
}

/* approval_policy, approvals_reviewer and sandbox_mode of a
 * managed_config.toml become the lists of allowed values (read-only is
 * always allowed, and the automatic reviewer allows the user too) */
EsdEnvToml *
esd_env_toml_legacy_requirements(const EsdEnvToml *managed)
{
	auto *doc = new _EsdEnvToml();
	const toml::node *policy = managed->table.get("approval_policy");
	const toml::node *reviewer = managed->table.get("approvals_reviewer");
	const toml::node *mode = managed->table.get("sandbox_mode");

	if (policy != nullptr && policy->is_string())
		doc->table.insert("allowed_approval_policies", toml::array{policy->as_string()->get()});
	if (reviewer != nullptr && reviewer->is_string()) {
		toml::array allowed{reviewer->as_string()->get()};
		if (reviewer->as_string()->get() == "auto_review")
			allowed.push_back("user");
		doc->table.insert("allowed_approvals_reviewers", std::move(allowed));
	}
	if (mode != nullptr && mode->is_string()) {
		toml::array allowed{"read-only"};
		if (mode->as_string()->get() != "read-only")
			allowed.push_back(mode->as_string()->get());
		doc->table.insert("allowed_sandbox_modes", std::move(allowed));
	}
	return doc;
}

const EsdEnvTomlFuncs esd_env_toml_funcs = {
    esd_env_toml_parse,
    esd_env_toml_free,
    esd_env_toml_project,
    esd_env_toml_get_string,
    esd_env_toml_get_strv,
    esd_env_toml_remove,
    esd_env_toml_legacy_requirements,
};

} // namespace

extern "C" const EsdEnvTomlFuncs *
esd_env_toml_get_funcs(void)
{
	return &esd_env_toml_funcs;
}
