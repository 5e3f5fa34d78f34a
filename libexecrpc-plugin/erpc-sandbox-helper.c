/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "erpc-call-private.h"
#include "erpc-registry-private.h"
#include "erpc-sandbox-helper.h"

/*
 * The other side of a sandboxed job: a helper program a plugin runs with
 * erpc_sandbox_spawn() may answer one request with the plugin's own
 * method table, exactly as the daemon would, without a daemon. The call
 * goes to a transport that keeps the one answer instead of sending it.
 */

#define ERPC_TYPE_SANDBOX_HELPER_TRANSPORT (erpc_sandbox_helper_transport_get_type())
G_DECLARE_FINAL_TYPE(ErpcSandboxHelperTransport,
		     erpc_sandbox_helper_transport,
		     ERPC,
		     SANDBOX_HELPER_TRANSPORT,
		     ErpcTransport)

struct _ErpcSandboxHelperTransport {
	ErpcTransport parent_instance;
	GBytes *answer;
};

G_DEFINE_FINAL_TYPE(ErpcSandboxHelperTransport, erpc_sandbox_helper_transport, ERPC_TYPE_TRANSPORT)

static void
erpc_sandbox_helper_transport_send(ErpcTransport *transport, GBytes *message)
{
	ErpcSandboxHelperTransport *self = ERPC_SANDBOX_HELPER_TRANSPORT(transport);
	if (self->answer == NULL)
		self->answer = g_bytes_ref(message);
}

static void
erpc_sandbox_helper_transport_close(ErpcTransport *transport, gboolean abort)
{
}

static void
erpc_sandbox_helper_transport_finalize(GObject *object)
{
	ErpcSandboxHelperTransport *self = ERPC_SANDBOX_HELPER_TRANSPORT(object);
	g_clear_pointer(&self->answer, g_bytes_unref);
	G_OBJECT_CLASS(erpc_sandbox_helper_transport_parent_class)->finalize(object);
}

static void
erpc_sandbox_helper_transport_init(ErpcSandboxHelperTransport *self)
{
}

static void
erpc_sandbox_helper_transport_class_init(ErpcSandboxHelperTransportClass *klass)
{
	ErpcTransportClass *transport_class = ERPC_TRANSPORT_CLASS(klass);

	G_OBJECT_CLASS(klass)->finalize = erpc_sandbox_helper_transport_finalize;
	transport_class->send = erpc_sandbox_helper_transport_send;
	transport_class->close = erpc_sandbox_helper_transport_close;
}

/* as the daemon's dispatcher runs a handler, up to its answer */
static gboolean
erpc_sandbox_helper_dispatch(ErpcRegistry *registry,
			     ErpcCall *call,
			     ErpcMessage *message,
			     GError **error)
{
	const ErpcMethodInfo *info;
	gpointer user_data = NULL;
	JsonObject *params;

	info = erpc_registry_lookup_method(registry, erpc_message_get_method(message), &user_data);
	if (info == NULL || info->params_type == NULL) {
		g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_INTERNAL, "no such method");
		return FALSE;
	}
	params =
	    erpc_json_params_object(erpc_message_get_params(message), info->params_type, error);
	if (params == NULL)
		return FALSE;
	if ((info->flags & ERPC_METHOD_FLAG_BLOBS) == 0)
		erpc_message_expand(message);
	info->func(call, params, user_data);
	while (!erpc_call_is_finished(call))
		g_main_context_iteration(NULL, TRUE);
	return TRUE;
}

/**
 * erpc_sandbox_helper_run_request:
 * @plugin: a plugin, not set up yet
 * @request: a request for one of the methods @plugin registers
 * @max_message_size: the message size limit of the connection
 * @max_depth: the nesting limit of the connection
 * @call: (out) (transfer full): the call, whose connection holds what the
 *   handler left (e.g. the per-connection state of @plugin)
 * @error: return location for a #GError, or %NULL
 *
 * For a helper program run in the sandbox: sets @plugin up on a registry
 * of its own, runs @request with the handler @plugin registered for it,
 * as the daemon's dispatcher would (its params checked the same way), and
 * returns the answer instead of sending it. Iterates the thread-default
 * main context until the call is answered.
 *
 * Returns: (transfer full): the complete answer (a JSON-RPC response
 *   without a trailing newline), or %NULL with @error if @plugin cannot be
 *   set up
 *
 * Since: 0.2
 */
GBytes *
erpc_sandbox_helper_run_request(ErpcPlugin *plugin,
				ErpcMessage *request,
				gsize max_message_size,
				guint max_depth,
				ErpcCall **call,
				GError **error)
{
	g_autoptr(ErpcRegistry) registry = erpc_registry_new();
	g_autoptr(ErpcSandboxHelperTransport) transport = NULL;
	g_autoptr(ErpcConnection) connection = NULL;
	g_autoptr(ErpcCall) local_call = NULL;
	g_autoptr(GError) error_local = NULL;

	g_return_val_if_fail(ERPC_IS_PLUGIN(plugin), NULL);
	g_return_val_if_fail(request != NULL && call != NULL, NULL);
	if (!ERPC_PLUGIN_GET_CLASS(plugin)->setup(plugin, registry, error))
		return NULL;
	transport = g_object_new(ERPC_TYPE_SANDBOX_HELPER_TRANSPORT,
				 "peer",
				 g_get_prgname() != NULL ? g_get_prgname() : "sandbox-helper",
				 NULL);
	connection = erpc_connection_new(ERPC_TRANSPORT(transport), max_message_size, max_depth);
	local_call = erpc_call_new(connection, request);
	if (!erpc_sandbox_helper_dispatch(registry, local_call, request, &error_local))
		erpc_call_return_error(local_call, error_local);
	if (transport->answer == NULL) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "the call gave no answer");
		return NULL;
	}
	*call = g_steal_pointer(&local_call);
	return g_bytes_ref(transport->answer);
}
