// SPDX-License-Identifier: Apache-2.0
#pragma once
// Only what AudioCodecs uses (spandsp.h would pull in libtiff's headers for fax).
#include <stdint.h>
#include <spandsp/telephony.h>
#include <spandsp/plc.h>
#include <spandsp/g722.h>
// G.711's reference conversions (static inline): the baseline our Swift G.711 is tested and
// benchmarked against.
#include <spandsp/g711.h>
