/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

/*
 * libexecrpc-toml: TOML to JSON with toml++, in a module of its own so that
 * libexecrpc (and the daemon linking it) never maps libstdc++. erpc-toml.c
 * opens it on first use; the interface is plain C and malloc()ed strings.
 */

#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS	 1
#include <toml++/toml.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#define ERPC_TOML_EXPORT extern "C" __attribute__((visibility("default")))

static char *
erpc_toml_strdup(const std::string &text)
{
	char *copy = static_cast<char *>(std::malloc(text.size() + 1));
	if (copy != nullptr)
		std::memcpy(copy, text.c_str(), text.size() + 1);
	return copy;
}

/* the document as one JSON object; or NULL and *error ("line L, column C: …") */
ERPC_TOML_EXPORT char *
erpc_toml_module_to_json(const char *data, size_t len, char **error)
{
	try {
		toml::table table = toml::parse(std::string_view(data, len));
		std::ostringstream out;
		out << toml::json_formatter{table};
		return erpc_toml_strdup(out.str());
	} catch (const toml::parse_error &err) {
		std::ostringstream out;
		out << "line " << err.source().begin.line << ", column "
		    << err.source().begin.column << ": " << err.description();
		*error = erpc_toml_strdup(out.str());
	} catch (const std::exception &err) {
		*error = erpc_toml_strdup(err.what());
	}
	return nullptr;
}

ERPC_TOML_EXPORT void
erpc_toml_module_free(char *text)
{
	std::free(text);
}
