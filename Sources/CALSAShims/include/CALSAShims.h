// SPDX-License-Identifier: Apache-2.0
#pragma once
// Wrappers for ALSA calls Swift cannot make: the snd_*_alloca macros used while negotiating
// parameters. Nothing else belongs here.

#include <alsa/asoundlib.h>

// MARK: - ALSA (snd_*_alloca macros). Each returns 0 or a negative errno.

/// Requested (in) and negotiated (out) PCM parameters; the format is always S16_LE,
/// interleaved read/write access.
typedef struct {
    unsigned int rate;
    unsigned int channels;
    unsigned long periodFrames;
    unsigned long bufferFrames;
} ve_alsa_parameters;

/// Negotiates hardware and software parameters (avail_min = one period, start threshold at
/// the boundary so streams start explicitly, monotonic timestamps). On failure, sets
/// *failedFunction to the call that failed.
int ve_alsa_configure(snd_pcm_t *pcm, ve_alsa_parameters *parameters, const char **failedFunction);
