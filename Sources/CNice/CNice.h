// SPDX-License-Identifier: Apache-2.0
#pragma once
// libnice (Debian libnice-dev): ICE (RFC 8445) with STUN and TURN, on a GLib main context.
#include <glib.h>
#include <nice/agent.h>
