// SPDX-License-Identifier: Apache-2.0
#include "NiceShims.h"
#include <string.h>

typedef struct {
    void *context;
    ve_nice_event_callback on_event;
    ve_nice_receive_callback on_receive;
    GMainContext *main_context;
    // The stream reported (atomic: replaced on the caller's thread, read on the agent's).
    // Signals of a stream being removed are not.
    gint stream_id;
} ve_nice_handlers;

static gboolean ve_is_current(ve_nice_handlers *handlers, guint stream_id) {
    return (guint)g_atomic_int_get(&handlers->stream_id) == stream_id;
}

static void ve_report_candidate(NiceAgent *agent, NiceCandidate *candidate, gpointer data) {
    ve_nice_handlers *handlers = data;
    if (candidate->component_id != 1 || !ve_is_current(handlers, candidate->stream_id)) return;
    gchar *sdp = nice_agent_generate_local_candidate_sdp(agent, candidate);
    if (!sdp) return;
    const char *value = strncmp(sdp, "a=", 2) == 0 ? sdp + 2 : sdp;
    handlers->on_event(handlers->context, VE_NICE_LOCAL_CANDIDATE, 0, value, NULL);
    g_free(sdp);
}

static void ve_report_gathering_done(NiceAgent *agent, guint stream_id, gpointer data) {
    (void)agent;
    ve_nice_handlers *handlers = data;
    if (!ve_is_current(handlers, stream_id)) return;
    handlers->on_event(handlers->context, VE_NICE_GATHERING_DONE, 0, NULL, NULL);
}

static void ve_report_state(NiceAgent *agent, guint stream_id, guint component_id, guint state, gpointer data) {
    (void)agent;
    ve_nice_handlers *handlers = data;
    if (component_id != 1 || !ve_is_current(handlers, stream_id)) return;
    handlers->on_event(handlers->context, VE_NICE_STATE_CHANGED, state, NULL, NULL);
}

static void ve_report_pair(NiceAgent *agent, guint stream_id, guint component_id, NiceCandidate *local, NiceCandidate *remote,
                           gpointer data) {
    ve_nice_handlers *handlers = data;
    if (component_id != 1 || !ve_is_current(handlers, stream_id)) return;
    gchar *local_sdp = nice_agent_generate_local_candidate_sdp(agent, local);
    gchar *remote_sdp = nice_agent_generate_local_candidate_sdp(agent, remote);
    const char *l = local_sdp && strncmp(local_sdp, "a=", 2) == 0 ? local_sdp + 2 : local_sdp;
    const char *r = remote_sdp && strncmp(remote_sdp, "a=", 2) == 0 ? remote_sdp + 2 : remote_sdp;
    handlers->on_event(handlers->context, VE_NICE_SELECTED_PAIR, 0, l ? l : "", r ? r : "");
    g_free(local_sdp);
    g_free(remote_sdp);
}

static void ve_receive(NiceAgent *agent, guint stream_id, guint component_id, guint length, gchar *bytes, gpointer data) {
    (void)agent;
    ve_nice_handlers *handlers = data;
    if (component_id != 1 || !ve_is_current(handlers, stream_id)) return;
    handlers->on_receive(handlers->context, bytes, length);
}

/// A stream of one component, its datagrams to the handlers on their context; it becomes the
/// one reported. 0 on failure.
static unsigned ve_add_stream(NiceAgent *agent, ve_nice_handlers *handlers) {
    guint stream = nice_agent_add_stream(agent, 1);
    if (stream == 0) return 0;
    g_atomic_int_set(&handlers->stream_id, (gint)stream);
    nice_agent_attach_recv(agent, stream, 1, handlers->main_context, ve_receive, handlers);
    return stream;
}

NiceAgent *ve_nice_agent_new(GMainContext *main_context, int controlling, int trickle, int consent_freshness,
                             int regular_nomination, int force_relay, void *context,
                             ve_nice_event_callback on_event, ve_nice_receive_callback on_receive, unsigned *stream_id) {
    NiceAgentOption options = NICE_AGENT_OPTION_NONE;
    if (trickle) options |= NICE_AGENT_OPTION_ICE_TRICKLE;
    if (consent_freshness) options |= NICE_AGENT_OPTION_CONSENT_FRESHNESS;
    if (regular_nomination) options |= NICE_AGENT_OPTION_REGULAR_NOMINATION;
    NiceAgent *agent = nice_agent_new_full(main_context, NICE_COMPATIBILITY_RFC5245, options);
    if (!agent) return NULL;
    g_object_set(agent, "controlling-mode", controlling ? TRUE : FALSE, "ice-tcp", FALSE, "ice-udp", TRUE, "upnp", FALSE,
                 "force-relay", force_relay ? TRUE : FALSE, NULL);
    ve_nice_handlers *handlers = g_new0(ve_nice_handlers, 1);
    handlers->context = context;
    handlers->on_event = on_event;
    handlers->on_receive = on_receive;
    // Freed with the agent: the handlers live exactly as long as it does.
    g_object_set_data_full(G_OBJECT(agent), "ve-handlers", handlers, g_free);
    g_signal_connect(agent, "new-candidate-full", G_CALLBACK(ve_report_candidate), handlers);
    g_signal_connect(agent, "candidate-gathering-done", G_CALLBACK(ve_report_gathering_done), handlers);
    g_signal_connect(agent, "component-state-changed", G_CALLBACK(ve_report_state), handlers);
    g_signal_connect(agent, "new-selected-pair-full", G_CALLBACK(ve_report_pair), handlers);
    handlers->main_context = main_context;
    unsigned stream = ve_add_stream(agent, handlers);
    if (stream == 0) {
        g_object_unref(agent);
        return NULL;
    }
    *stream_id = stream;
    return agent;
}

unsigned ve_nice_agent_replace_stream(NiceAgent *agent, unsigned old_stream) {
    ve_nice_handlers *handlers = g_object_get_data(G_OBJECT(agent), "ve-handlers");
    if (!handlers) return 0;
    unsigned stream = ve_add_stream(agent, handlers);
    if (stream == 0) return 0;
    nice_agent_remove_stream(agent, old_stream);
    return stream;
}

void ve_nice_agent_set_stun_server(NiceAgent *agent, const char *ip, unsigned port) {
    g_object_set(agent, "stun-server", ip, "stun-server-port", port, NULL);
}

int ve_nice_agent_add_local_address(NiceAgent *agent, const char *ip) {
    NiceAddress address;
    nice_address_init(&address);
    if (!nice_address_set_from_string(&address, ip)) return 0;
    return nice_agent_add_local_address(agent, &address) ? 1 : 0;
}

int ve_nice_agent_add_remote_candidate(NiceAgent *agent, unsigned stream_id, const char *sdp) {
    NiceCandidate *candidate = nice_agent_parse_remote_candidate_sdp(agent, stream_id, sdp);
    if (!candidate) return 0;
    if (candidate->component_id != 1) {
        // RTCP's component: this stream multiplexes RTCP, so it has none to add it to.
        nice_candidate_free(candidate);
        return -1;
    }
    GSList *list = g_slist_append(NULL, candidate);
    int added = nice_agent_set_remote_candidates(agent, stream_id, 1, list);
    g_slist_free(list);
    nice_candidate_free(candidate);
    return added > 0 ? 1 : -1;
}

int ve_nice_agent_local_credentials(NiceAgent *agent, unsigned stream_id, char *ufrag, size_t ufrag_size, char *pwd, size_t pwd_size) {
    gchar *u = NULL, *p = NULL;
    if (!nice_agent_get_local_credentials(agent, stream_id, &u, &p)) return 0;
    int fits = strlen(u) < ufrag_size && strlen(p) < pwd_size;
    if (fits) {
        strcpy(ufrag, u);
        strcpy(pwd, p);
    }
    g_free(u);
    g_free(p);
    return fits;
}

void ve_nice_agent_disconnect(NiceAgent *agent) {
    gpointer handlers = g_object_get_data(G_OBJECT(agent), "ve-handlers");
    if (handlers) g_signal_handlers_disconnect_matched(agent, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, handlers);
}

static void ve_closed(GObject *source, GAsyncResult *result, gpointer data) {
    (void)source;
    (void)result;
    g_atomic_int_set((gint *)data, 1);
}

void ve_nice_agent_close(NiceAgent *agent, int *done) { nice_agent_close_async(agent, ve_closed, done); }

int ve_atomic_get(int *flag) { return g_atomic_int_get((gint *)flag); }
