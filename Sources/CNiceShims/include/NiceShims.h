// SPDX-License-Identifier: Apache-2.0
#pragma once
// libnice calls Swift cannot make: GObject's variadic property setters, signal connections
// (g_signal_connect is a macro over differently typed handlers), GSList building. One
// function per need; nothing else belongs here.
#include <glib.h>
#include <nice/agent.h>

/// What happened in an agent, for the one callback it reports through.
typedef enum {
    VE_NICE_LOCAL_CANDIDATE = 0,   // text: the candidate's SDP attribute value ("candidate:…")
    VE_NICE_GATHERING_DONE = 1,
    VE_NICE_STATE_CHANGED = 2,     // state: a NiceComponentState
    VE_NICE_SELECTED_PAIR = 3,     // text: local candidate SDP, text2: remote candidate SDP
} ve_nice_event_kind;

/// Called on the agent's main-context thread for every event of component 1 of its stream.
typedef void (*ve_nice_event_callback)(void *context, int kind, unsigned state, const char *text, const char *text2);
/// Called on the agent's main-context thread for every datagram component 1 receives.
typedef void (*ve_nice_receive_callback)(void *context, const char *bytes, unsigned length);

/// An RFC 5245/8445 agent on `main_context` with one stream of one component (rtcp-mux),
/// UDP only, no UPnP; its events and datagrams go to the callbacks with `context`. NULL on failure.
NiceAgent *ve_nice_agent_new(GMainContext *main_context, int controlling, int trickle, int consent_freshness,
                             int regular_nomination, int force_relay, void *context,
                             ve_nice_event_callback on_event, ve_nice_receive_callback on_receive, unsigned *stream_id);
/// The STUN server (an IP address literal and port) for server-reflexive candidates.
void ve_nice_agent_set_stun_server(NiceAgent *agent, const char *ip, unsigned port);
/// Restricts host candidates to `ip` (call once per address before gathering). FALSE if `ip` does not parse.
int ve_nice_agent_add_local_address(NiceAgent *agent, const char *ip);
/// Adds a remote candidate from its SDP attribute value; 1 when added, 0 when it does not parse, -1 when refused.
/// A new stream in place of `old_stream` (removed: its sockets closed, its TURN allocations
/// released), reported from now on; gather its candidates anew. 0 on failure (the old one kept).
unsigned ve_nice_agent_replace_stream(NiceAgent *agent, unsigned old_stream);

int ve_nice_agent_add_remote_candidate(NiceAgent *agent, unsigned stream_id, const char *sdp);
/// Copies the local ufrag and password into the buffers (NUL-terminated); FALSE on failure.
int ve_nice_agent_local_credentials(NiceAgent *agent, unsigned stream_id, char *ufrag, size_t ufrag_size, char *pwd, size_t pwd_size);
/// Disconnects the agent's signal handlers (before it is released, so nothing calls into freed memory).
void ve_nice_agent_disconnect(NiceAgent *agent);
/// nice_agent_close_async: releases TURN allocations and stops the agent's timers; `*done` is
/// set to 1 (atomically) on the agent's main-context thread when that is finished.
void ve_nice_agent_close(NiceAgent *agent, int *done);
/// Reads `*flag` atomically (as `ve_nice_agent_close` sets it).
int ve_atomic_get(int *flag);
