// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <dbus/dbus.h>

// libdbus's type codes are character-cast macros Swift does not import: the ones used here.
static const int CDBUS_TYPE_STRING = DBUS_TYPE_STRING;
static const int CDBUS_TYPE_BYTE = DBUS_TYPE_BYTE;
static const int CDBUS_TYPE_ARRAY = DBUS_TYPE_ARRAY;
