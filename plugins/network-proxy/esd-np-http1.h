/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* how the body of one HTTP/1.1 message ends (RFC 9112 §6) */
typedef enum {
	ESD_NP_BODY_NONE,    /* no body: the next message follows the head */
	ESD_NP_BODY_LENGTH,  /* Content-Length bytes */
	ESD_NP_BODY_CHUNKED, /* chunked, through its trailer section */
	ESD_NP_BODY_CLOSE,   /* a response read until the connection ends */
	ESD_NP_BODY_TUNNEL,  /* no more messages: the connection is no HTTP any more */
} EsdNpBodyKind;

typedef struct {
	EsdNpBodyKind kind;
	guint64 remaining; /* LENGTH: bytes left; CHUNKED: of the current chunk's data */
	guint state;	   /* CHUNKED: where in the framing */
	guint line;	   /* CHUNKED: bytes of the current size or trailer line */
	guint digits;	   /* CHUNKED: hex digits of the current size */
	guint64 trailer;   /* CHUNKED: bytes of the trailer section */
} EsdNpBody;

/* the head of one response inside an intercepted tunnel */
typedef struct {
	guint status;
	GPtrArray *headers; /* name, value, name, value... */
	gsize head_len;
} EsdNpResponse;

gboolean
esd_np_body_init_request(EsdNpBody *body, const GPtrArray *headers);
gboolean
esd_np_body_init_response(EsdNpBody *body,
			  const EsdNpResponse *response,
			  const gchar *request_method);
gssize
esd_np_body_feed(EsdNpBody *body, const guint8 *data, gsize len, gboolean *done);

EsdNpResponse *
esd_np_response_parse(const gchar *data, gsize len);
void
esd_np_response_free(EsdNpResponse *self);
gchar *
esd_np_response_close_head(const gchar *head, gsize len);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdNpResponse, esd_np_response_free)

G_END_DECLS
