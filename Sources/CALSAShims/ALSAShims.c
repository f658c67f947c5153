// SPDX-License-Identifier: Apache-2.0
// Wrappers for ALSA calls Swift cannot make: the snd_*_alloca macros used while negotiating
// hardware and software parameters. Everything else is called from Swift directly.
#include <alsa/asoundlib.h>
#include "CALSAShims.h"

int ve_alsa_configure(snd_pcm_t *pcm, ve_alsa_parameters *parameters, const char **failedFunction) {
    snd_pcm_hw_params_t *hw;
    snd_pcm_sw_params_t *sw;
    snd_pcm_hw_params_alloca(&hw);
    snd_pcm_sw_params_alloca(&sw);
    int err;
#define VE_TRY(call) do { err = (call); if (err < 0) { *failedFunction = #call; return err; } } while (0)
    VE_TRY(snd_pcm_hw_params_any(pcm, hw));
    VE_TRY(snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED));
    VE_TRY(snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE));
    VE_TRY(snd_pcm_hw_params_set_channels(pcm, hw, parameters->channels));
    unsigned int rate = parameters->rate;
    VE_TRY(snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, NULL));
    snd_pcm_uframes_t period = parameters->periodFrames;
    VE_TRY(snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, NULL));
    snd_pcm_uframes_t buffer = parameters->bufferFrames;
    VE_TRY(snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer));
    VE_TRY(snd_pcm_hw_params(pcm, hw));
    VE_TRY(snd_pcm_hw_params_get_period_size(hw, &period, NULL));
    VE_TRY(snd_pcm_hw_params_get_buffer_size(hw, &buffer));
    VE_TRY(snd_pcm_hw_params_get_rate(hw, &rate, NULL));

    snd_pcm_uframes_t boundary;
    VE_TRY(snd_pcm_sw_params_current(pcm, sw));
    VE_TRY(snd_pcm_sw_params_get_boundary(sw, &boundary));
    VE_TRY(snd_pcm_sw_params_set_avail_min(pcm, sw, period));
    VE_TRY(snd_pcm_sw_params_set_start_threshold(pcm, sw, boundary));  // started explicitly
    VE_TRY(snd_pcm_sw_params_set_tstamp_mode(pcm, sw, SND_PCM_TSTAMP_ENABLE));
    VE_TRY(snd_pcm_sw_params_set_tstamp_type(pcm, sw, SND_PCM_TSTAMP_TYPE_MONOTONIC));
    VE_TRY(snd_pcm_sw_params(pcm, sw));
#undef VE_TRY
    parameters->rate = rate;
    parameters->periodFrames = period;
    parameters->bufferFrames = buffer;
    return 0;
}
