/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <libsoup/soup.h>

G_BEGIN_DECLS

/*
 * libsoup, opened on the first http/request rather than linked: a daemon
 * that never makes a request (most stdio daemons) does not map it and its
 * libraries at start-up. Include this after <libsoup/soup.h>: the libsoup
 * calls of the file then go through the table.
 */
typedef struct {
	typeof(soup_session_new_with_options) *session_new_with_options;
	typeof(soup_session_send_async) *session_send_async;
	typeof(soup_session_send_finish) *session_send_finish;
	typeof(soup_session_error_quark) *session_error_quark;
	typeof(soup_session_remove_feature_by_type) *session_remove_feature_by_type;
	typeof(soup_auth_manager_get_type) *auth_manager_get_type;
	typeof(soup_message_new_from_uri) *message_new_from_uri;
	typeof(soup_message_add_flags) *message_add_flags;
	typeof(soup_message_get_request_headers) *message_get_request_headers;
	typeof(soup_message_get_response_headers) *message_get_response_headers;
	typeof(soup_message_get_status) *message_get_status;
	typeof(soup_message_get_tls_peer_certificate_errors)
	    *message_get_tls_peer_certificate_errors;
	typeof(soup_message_set_request_body_from_bytes) *message_set_request_body_from_bytes;
	typeof(soup_message_headers_append) *message_headers_append;
	typeof(soup_message_headers_get_one) *message_headers_get_one;
	typeof(soup_message_headers_iter_init) *message_headers_iter_init;
	typeof(soup_message_headers_iter_next) *message_headers_iter_next;
	typeof(soup_message_headers_get_encoding) *message_headers_get_encoding;
	typeof(soup_message_headers_get_content_length) *message_headers_get_content_length;
} EsdHttpSoup;

extern EsdHttpSoup esd_http_soup;

gboolean
esd_http_soup_load(GError **error);

#ifndef ESD_HTTP_SOUP_NO_REDIRECT
#define soup_session_new_with_options	  (*esd_http_soup.session_new_with_options)
#define soup_session_send_async		  (*esd_http_soup.session_send_async)
#define soup_session_send_finish	  (*esd_http_soup.session_send_finish)
#define soup_session_error_quark	  (*esd_http_soup.session_error_quark)
#define soup_message_new_from_uri	  (*esd_http_soup.message_new_from_uri)
#define soup_message_add_flags		  (*esd_http_soup.message_add_flags)
#define soup_message_get_request_headers  (*esd_http_soup.message_get_request_headers)
#define soup_message_get_response_headers (*esd_http_soup.message_get_response_headers)
#define soup_message_get_status		  (*esd_http_soup.message_get_status)
#define soup_message_get_tls_peer_certificate_errors                                               \
	(*esd_http_soup.message_get_tls_peer_certificate_errors)
#define soup_message_set_request_body_from_bytes                                                   \
	(*esd_http_soup.message_set_request_body_from_bytes)
#define soup_message_headers_append		(*esd_http_soup.message_headers_append)
#define soup_message_headers_get_one		(*esd_http_soup.message_headers_get_one)
#define soup_message_headers_iter_init		(*esd_http_soup.message_headers_iter_init)
#define soup_message_headers_iter_next		(*esd_http_soup.message_headers_iter_next)
#define soup_message_headers_get_encoding	(*esd_http_soup.message_headers_get_encoding)
#define soup_message_headers_get_content_length (*esd_http_soup.message_headers_get_content_length)
#endif

G_END_DECLS
