/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define ESD_NP_REQUEST_MAX_HEAD (64 * 1024)

/* the head of one request to the proxy */
typedef struct {
	gchar *method;
	gchar *host; /* as the request names it */
	guint16 port;
	guint16 default_port; /* of a `Host` without one: 80, 443 in a TLS tunnel */
	gchar *path;	      /* origin form; NULL for CONNECT */
	gchar *version;
	gboolean connect;
	/* an `x-unix-socket` header (not in a tunnel): any target, host `unix-socket`, port 0 */
	gboolean unix_socket;
	gboolean unix_socket_invalid; /* its value is not visible ASCII */
	GPtrArray *headers;	      /* name, value, name, value... */
	gsize head_len;		      /* bytes up to and including the blank line */
} EsdNpRequest;

gssize
esd_np_request_find_end(const gchar *data, gsize len);
EsdNpRequest *
esd_np_request_parse(const gchar *data, gsize len);
EsdNpRequest *
esd_np_request_parse_origin(const gchar *data, gsize len, const gchar *host, guint16 port);
gboolean
esd_np_request_parse_header_lines(gchar **lines, GPtrArray *headers);
gboolean
esd_np_request_is_upgrade(const EsdNpRequest *self);
gboolean
esd_np_request_host_matches(const EsdNpRequest *self);
gboolean
esd_np_request_method_is_read(const gchar *method);
gchar *
esd_np_request_forward_head(const EsdNpRequest *self, gboolean absolute);
gchar *
esd_np_request_forward_head_full(const EsdNpRequest *self, gboolean absolute, gboolean persistent);
void
esd_np_request_free(EsdNpRequest *self);
gchar *
esd_np_request_socks_host(guint8 atyp, const guint8 *address, gsize len);
gchar *
esd_np_request_parse_udp(const guint8 *data, gsize len, guint16 *port, gsize *offset);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdNpRequest, esd_np_request_free)

G_END_DECLS
