/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "esd-session.h"

/*
 * A session outlives its connection: it is created by `initialize`, detached
 * when the connection goes, and may be resumed by a later `initialize` with
 * `resumeSessionId` until the server expires it. The connection pointer is
 * weak so that a closing connection never keeps itself alive here.
 */
struct _EsdSession {
	GObject parent_instance;
	gchar *id;
	ErpcConnection *connection; /* weak */
};

G_DEFINE_TYPE(EsdSession, esd_session, G_TYPE_OBJECT)

const gchar *
esd_session_get_id(EsdSession *self)
{
	g_return_val_if_fail(ESD_IS_SESSION(self), NULL);
	return self->id;
}

ErpcConnection *
esd_session_get_connection(EsdSession *self)
{
	g_return_val_if_fail(ESD_IS_SESSION(self), NULL);
	return self->connection;
}

gboolean
esd_session_is_attached(EsdSession *self)
{
	g_return_val_if_fail(ESD_IS_SESSION(self), FALSE);
	return self->connection != NULL;
}

void
esd_session_attach(EsdSession *self, ErpcConnection *connection)
{
	g_return_if_fail(ESD_IS_SESSION(self));
	g_return_if_fail(self->connection == NULL);
	self->connection = connection;
	g_object_add_weak_pointer(G_OBJECT(connection), (gpointer *)&self->connection);
}

void
esd_session_detach(EsdSession *self)
{
	g_return_if_fail(ESD_IS_SESSION(self));
	if (self->connection == NULL)
		return;
	g_object_remove_weak_pointer(G_OBJECT(self->connection), (gpointer *)&self->connection);
	self->connection = NULL;
}

static void
esd_session_finalize(GObject *object)
{
	EsdSession *self = ESD_SESSION(object);
	esd_session_detach(self);
	g_free(self->id);
	G_OBJECT_CLASS(esd_session_parent_class)->finalize(object);
}

static void
esd_session_init(EsdSession *self)
{
	self->id = g_uuid_string_random();
}

static void
esd_session_class_init(EsdSessionClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = esd_session_finalize;
}

EsdSession *
esd_session_new(void)
{
	return g_object_new(ESD_TYPE_SESSION, NULL);
}
