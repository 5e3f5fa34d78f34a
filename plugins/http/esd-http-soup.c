/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <dlfcn.h>
#include <execrpc-plugin.h>

#define ESD_HTTP_SOUP_NO_REDIRECT
#include "esd-http-soup.h"

#define ESD_HTTP_SOUP_LIBRARY "libsoup-3.0.so.0"

EsdHttpSoup esd_http_soup;

/* each entry of EsdHttpSoup, in order */
static const gchar *const esd_http_soup_symbols[] = {
    "soup_session_new_with_options",
    "soup_session_send_async",
    "soup_session_send_finish",
    "soup_session_error_quark",
    "soup_session_remove_feature_by_type",
    "soup_auth_manager_get_type",
    "soup_message_new_from_uri",
    "soup_message_add_flags",
    "soup_message_get_request_headers",
    "soup_message_get_response_headers",
    "soup_message_get_status",
    "soup_message_get_tls_peer_certificate_errors",
    "soup_message_set_request_body_from_bytes",
    "soup_message_headers_append",
    "soup_message_headers_get_one",
    "soup_message_headers_iter_init",
    "soup_message_headers_iter_next",
    "soup_message_headers_get_encoding",
    "soup_message_headers_get_content_length",
};
G_STATIC_ASSERT(sizeof(EsdHttpSoup) == G_N_ELEMENTS(esd_http_soup_symbols) * sizeof(void *));

static gchar *esd_http_soup_failure = NULL;

/**
 * esd_http_soup_load:
 * @error: return location for a #GError, or %NULL
 *
 * Fills #esd_http_soup, once.
 *
 * Returns: %TRUE once libsoup is usable
 */
gboolean
esd_http_soup_load(GError **error)
{
	static gsize loaded = 0;

	if (g_once_init_enter(&loaded)) {
		void *handle = dlopen(ESD_HTTP_SOUP_LIBRARY, RTLD_LAZY | RTLD_LOCAL);
		void **slots = (void **)&esd_http_soup;

		if (handle == NULL)
			esd_http_soup_failure = g_strdup(dlerror());
		for (guint i = 0; handle != NULL && i < G_N_ELEMENTS(esd_http_soup_symbols); i++) {
			slots[i] = dlsym(handle, esd_http_soup_symbols[i]);
			if (slots[i] == NULL) {
				esd_http_soup_failure = g_strdup_printf("%s has no %s",
									ESD_HTTP_SOUP_LIBRARY,
									esd_http_soup_symbols[i]);
				break;
			}
		}
		/* never closed: the session and libsoup's types stay in use */
		g_once_init_leave(&loaded, 1);
	}
	if (esd_http_soup_failure != NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_NOT_SUPPORTED,
			    "cannot open libsoup: %s",
			    esd_http_soup_failure);
		return FALSE;
	}
	return TRUE;
}
