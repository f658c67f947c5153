// SPDX-License-Identifier: Apache-2.0
#pragma once
// Wrappers for libopus calls Swift cannot make: the variadic opus_*_ctl requests.
// One function per request; nothing else belongs here.

#include <opus.h>

// MARK: - Opus encoder requests (opus_encoder_ctl). Each returns the libopus status code.

int ve_opus_encoder_set_bitrate(OpusEncoder *encoder, opus_int32 bitsPerSecond);
int ve_opus_encoder_get_bitrate(OpusEncoder *encoder, opus_int32 *bitsPerSecond);
int ve_opus_encoder_set_complexity(OpusEncoder *encoder, opus_int32 complexity);
int ve_opus_encoder_get_complexity(OpusEncoder *encoder, opus_int32 *complexity);
int ve_opus_encoder_set_vbr(OpusEncoder *encoder, opus_int32 enabled);
int ve_opus_encoder_get_vbr(OpusEncoder *encoder, opus_int32 *enabled);
int ve_opus_encoder_set_vbr_constraint(OpusEncoder *encoder, opus_int32 constrained);
int ve_opus_encoder_get_vbr_constraint(OpusEncoder *encoder, opus_int32 *constrained);
int ve_opus_encoder_set_max_bandwidth(OpusEncoder *encoder, opus_int32 bandwidth);
int ve_opus_encoder_get_max_bandwidth(OpusEncoder *encoder, opus_int32 *bandwidth);
int ve_opus_encoder_set_bandwidth(OpusEncoder *encoder, opus_int32 bandwidth);
int ve_opus_encoder_get_bandwidth(OpusEncoder *encoder, opus_int32 *bandwidth);
int ve_opus_encoder_set_signal(OpusEncoder *encoder, opus_int32 signal);
int ve_opus_encoder_get_signal(OpusEncoder *encoder, opus_int32 *signal);
int ve_opus_encoder_set_inband_fec(OpusEncoder *encoder, opus_int32 enabled);
int ve_opus_encoder_get_inband_fec(OpusEncoder *encoder, opus_int32 *enabled);
int ve_opus_encoder_set_dtx(OpusEncoder *encoder, opus_int32 enabled);
int ve_opus_encoder_get_dtx(OpusEncoder *encoder, opus_int32 *enabled);
int ve_opus_encoder_get_in_dtx(OpusEncoder *encoder, opus_int32 *inDTX);
int ve_opus_encoder_set_packet_loss_perc(OpusEncoder *encoder, opus_int32 percent);
int ve_opus_encoder_get_packet_loss_perc(OpusEncoder *encoder, opus_int32 *percent);
int ve_opus_encoder_get_lookahead(OpusEncoder *encoder, opus_int32 *samples);
int ve_opus_encoder_reset_state(OpusEncoder *encoder);

// MARK: - Opus decoder requests (opus_decoder_ctl). Each returns the libopus status code.

int ve_opus_decoder_set_gain(OpusDecoder *decoder, opus_int32 gainQ8dB);
int ve_opus_decoder_get_gain(OpusDecoder *decoder, opus_int32 *gainQ8dB);
int ve_opus_decoder_get_last_packet_duration(OpusDecoder *decoder, opus_int32 *samples);
int ve_opus_decoder_reset_state(OpusDecoder *decoder);
