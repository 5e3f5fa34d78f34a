/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <dlfcn.h>
#include <execrpc-plugin.h>

#define ESD_WS_SOUP_NO_REDIRECT
#include "esd-ws-soup.h"

#define ESD_WS_SOUP_LIBRARY "libsoup-3.0.so.0"

EsdWsSoup esd_ws_soup;

/* each entry of EsdWsSoup, in order */
static const gchar *const esd_ws_soup_symbols[] = {
    "soup_server_new",
    "soup_server_add_handler",
    "soup_server_accept_iostream",
    "soup_server_disconnect",
    "soup_server_message_get_method",
    "soup_server_message_get_remote_address",
    "soup_server_message_get_request_headers",
    "soup_server_message_set_response",
    "soup_server_message_set_status",
    "soup_server_message_steal_connection",
    "soup_message_headers_get_one",
    "soup_message_headers_header_contains",
    "soup_message_headers_iter_init",
    "soup_message_headers_iter_next",
    "soup_websocket_server_check_handshake",
    "soup_websocket_server_process_handshake",
    "_SOUP_METHOD_GET",
    "_SOUP_METHOD_HEAD",
};
G_STATIC_ASSERT(sizeof(EsdWsSoup) == G_N_ELEMENTS(esd_ws_soup_symbols) * sizeof(void *));

static gchar *esd_ws_soup_failure = NULL;

/**
 * esd_ws_soup_load:
 *
 * Fills #esd_ws_soup, once; another thread that calls it meanwhile waits.
 *
 * Returns: %TRUE once libsoup is usable
 */
gboolean
esd_ws_soup_load(GError **error)
{
	static gsize loaded = 0;

	if (g_once_init_enter(&loaded)) {
		void *handle = dlopen(ESD_WS_SOUP_LIBRARY, RTLD_LAZY | RTLD_LOCAL);
		void **slots = (void **)&esd_ws_soup;

		if (handle == NULL)
			esd_ws_soup_failure = g_strdup(dlerror());
		for (guint i = 0; handle != NULL && i < G_N_ELEMENTS(esd_ws_soup_symbols); i++) {
			slots[i] = dlsym(handle, esd_ws_soup_symbols[i]);
			if (slots[i] == NULL) {
				esd_ws_soup_failure = g_strdup_printf("%s has no %s",
								      ESD_WS_SOUP_LIBRARY,
								      esd_ws_soup_symbols[i]);
				break;
			}
		}
		/* never closed: libsoup's types stay registered */
		g_once_init_leave(&loaded, 1);
	}
	if (esd_ws_soup_failure != NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_NOT_SUPPORTED,
			    "cannot open libsoup: %s",
			    esd_ws_soup_failure);
		return FALSE;
	}
	return TRUE;
}

static gpointer
esd_ws_soup_preload_thread(gpointer data)
{
	g_autoptr(GError) error = NULL;

	if (!esd_ws_soup_load(&error))
		g_warning("%s", error->message);
	return NULL;
}

/* opens libsoup in a thread, so that the first connection need not wait for it */
void
esd_ws_soup_preload(void)
{
	static gsize started = 0;

	if (g_once_init_enter(&started)) {
		g_thread_unref(g_thread_new("esd-ws-soup", esd_ws_soup_preload_thread, NULL));
		g_once_init_leave(&started, 1);
	}
}
