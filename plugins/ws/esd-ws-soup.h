/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <libsoup/soup.h>

G_BEGIN_DECLS

/*
 * libsoup, opened when the first connection is served rather than linked:
 * mapping it and its dozen libraries costs a few milliseconds, which a
 * listener spends after it announced its URL, in a thread
 * (esd_ws_soup_preload()). Include this after <libsoup/soup.h>: the libsoup
 * calls of the file then go through the table.
 */
typedef struct {
	typeof(soup_server_new) *server_new;
	typeof(soup_server_add_handler) *server_add_handler;
	typeof(soup_server_accept_iostream) *server_accept_iostream;
	typeof(soup_server_disconnect) *server_disconnect;
	typeof(soup_server_message_get_method) *server_message_get_method;
	typeof(soup_server_message_get_remote_address) *server_message_get_remote_address;
	typeof(soup_server_message_get_request_headers) *server_message_get_request_headers;
	typeof(soup_server_message_set_response) *server_message_set_response;
	typeof(soup_server_message_set_status) *server_message_set_status;
	typeof(soup_server_message_steal_connection) *server_message_steal_connection;
	typeof(soup_message_headers_get_one) *message_headers_get_one;
	typeof(soup_message_headers_header_contains) *message_headers_header_contains;
	typeof(soup_message_headers_iter_init) *message_headers_iter_init;
	typeof(soup_message_headers_iter_next) *message_headers_iter_next;
	typeof(soup_websocket_server_check_handshake) *websocket_server_check_handshake;
	typeof(soup_websocket_server_process_handshake) *websocket_server_process_handshake;
	typeof(_SOUP_METHOD_GET) *method_get;
	typeof(_SOUP_METHOD_HEAD) *method_head;
} EsdWsSoup;

extern EsdWsSoup esd_ws_soup;

gboolean
esd_ws_soup_load(GError **error);
void
esd_ws_soup_preload(void);

#ifndef ESD_WS_SOUP_NO_REDIRECT
#define soup_server_new				(*esd_ws_soup.server_new)
#define soup_server_add_handler			(*esd_ws_soup.server_add_handler)
#define soup_server_accept_iostream		(*esd_ws_soup.server_accept_iostream)
#define soup_server_disconnect			(*esd_ws_soup.server_disconnect)
#define soup_server_message_get_method		(*esd_ws_soup.server_message_get_method)
#define soup_server_message_get_remote_address	(*esd_ws_soup.server_message_get_remote_address)
#define soup_server_message_get_request_headers (*esd_ws_soup.server_message_get_request_headers)
#define soup_server_message_set_response	(*esd_ws_soup.server_message_set_response)
#define soup_server_message_set_status		(*esd_ws_soup.server_message_set_status)
#define soup_server_message_steal_connection	(*esd_ws_soup.server_message_steal_connection)
#define soup_message_headers_get_one		(*esd_ws_soup.message_headers_get_one)
#define soup_message_headers_header_contains	(*esd_ws_soup.message_headers_header_contains)
#define soup_message_headers_iter_init		(*esd_ws_soup.message_headers_iter_init)
#define soup_message_headers_iter_next		(*esd_ws_soup.message_headers_iter_next)
#define soup_websocket_server_check_handshake	(*esd_ws_soup.websocket_server_check_handshake)
#define soup_websocket_server_process_handshake (*esd_ws_soup.websocket_server_process_handshake)
#define _SOUP_METHOD_GET			(*esd_ws_soup.method_get)
#define _SOUP_METHOD_HEAD			(*esd_ws_soup.method_head)
#endif

G_END_DECLS
