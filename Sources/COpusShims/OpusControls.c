// SPDX-License-Identifier: Apache-2.0
// Wrappers for C calls Swift cannot make: variadic *_ctl requests and function-like macros.
// One function per request; nothing else belongs here.
#include <opus.h>
#include "COpusShims.h"

// MARK: - Opus encoder requests

int ve_opus_encoder_set_bitrate(OpusEncoder *encoder, opus_int32 bitsPerSecond) {
    return opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bitsPerSecond));
}
int ve_opus_encoder_get_bitrate(OpusEncoder *encoder, opus_int32 *bitsPerSecond) {
    return opus_encoder_ctl(encoder, OPUS_GET_BITRATE(bitsPerSecond));
}
int ve_opus_encoder_set_complexity(OpusEncoder *encoder, opus_int32 complexity) {
    return opus_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(complexity));
}
int ve_opus_encoder_get_complexity(OpusEncoder *encoder, opus_int32 *complexity) {
    return opus_encoder_ctl(encoder, OPUS_GET_COMPLEXITY(complexity));
}
int ve_opus_encoder_set_vbr(OpusEncoder *encoder, opus_int32 enabled) {
    return opus_encoder_ctl(encoder, OPUS_SET_VBR(enabled));
}
int ve_opus_encoder_get_vbr(OpusEncoder *encoder, opus_int32 *enabled) {
    return opus_encoder_ctl(encoder, OPUS_GET_VBR(enabled));
}
int ve_opus_encoder_set_vbr_constraint(OpusEncoder *encoder, opus_int32 constrained) {
    return opus_encoder_ctl(encoder, OPUS_SET_VBR_CONSTRAINT(constrained));
}
int ve_opus_encoder_get_vbr_constraint(OpusEncoder *encoder, opus_int32 *constrained) {
    return opus_encoder_ctl(encoder, OPUS_GET_VBR_CONSTRAINT(constrained));
}
int ve_opus_encoder_set_max_bandwidth(OpusEncoder *encoder, opus_int32 bandwidth) {
    return opus_encoder_ctl(encoder, OPUS_SET_MAX_BANDWIDTH(bandwidth));
}
int ve_opus_encoder_get_max_bandwidth(OpusEncoder *encoder, opus_int32 *bandwidth) {
    return opus_encoder_ctl(encoder, OPUS_GET_MAX_BANDWIDTH(bandwidth));
}
int ve_opus_encoder_set_bandwidth(OpusEncoder *encoder, opus_int32 bandwidth) {
    return opus_encoder_ctl(encoder, OPUS_SET_BANDWIDTH(bandwidth));
}
int ve_opus_encoder_get_bandwidth(OpusEncoder *encoder, opus_int32 *bandwidth) {
    return opus_encoder_ctl(encoder, OPUS_GET_BANDWIDTH(bandwidth));
}
int ve_opus_encoder_set_signal(OpusEncoder *encoder, opus_int32 signal) {
    return opus_encoder_ctl(encoder, OPUS_SET_SIGNAL(signal));
}
int ve_opus_encoder_get_signal(OpusEncoder *encoder, opus_int32 *signal) {
    return opus_encoder_ctl(encoder, OPUS_GET_SIGNAL(signal));
}
int ve_opus_encoder_set_inband_fec(OpusEncoder *encoder, opus_int32 enabled) {
    return opus_encoder_ctl(encoder, OPUS_SET_INBAND_FEC(enabled));
}
int ve_opus_encoder_get_inband_fec(OpusEncoder *encoder, opus_int32 *enabled) {
    return opus_encoder_ctl(encoder, OPUS_GET_INBAND_FEC(enabled));
}
int ve_opus_encoder_set_dtx(OpusEncoder *encoder, opus_int32 enabled) {
    return opus_encoder_ctl(encoder, OPUS_SET_DTX(enabled));
}
int ve_opus_encoder_get_dtx(OpusEncoder *encoder, opus_int32 *enabled) {
    return opus_encoder_ctl(encoder, OPUS_GET_DTX(enabled));
}
int ve_opus_encoder_get_in_dtx(OpusEncoder *encoder, opus_int32 *inDTX) {
    return opus_encoder_ctl(encoder, OPUS_GET_IN_DTX(inDTX));
}
int ve_opus_encoder_set_packet_loss_perc(OpusEncoder *encoder, opus_int32 percent) {
    return opus_encoder_ctl(encoder, OPUS_SET_PACKET_LOSS_PERC(percent));
}
int ve_opus_encoder_get_packet_loss_perc(OpusEncoder *encoder, opus_int32 *percent) {
    return opus_encoder_ctl(encoder, OPUS_GET_PACKET_LOSS_PERC(percent));
}
int ve_opus_encoder_get_lookahead(OpusEncoder *encoder, opus_int32 *samples) {
    return opus_encoder_ctl(encoder, OPUS_GET_LOOKAHEAD(samples));
}
int ve_opus_encoder_reset_state(OpusEncoder *encoder) {
    return opus_encoder_ctl(encoder, OPUS_RESET_STATE);
}

// MARK: - Opus decoder requests

int ve_opus_decoder_set_gain(OpusDecoder *decoder, opus_int32 gainQ8dB) {
    return opus_decoder_ctl(decoder, OPUS_SET_GAIN(gainQ8dB));
}
int ve_opus_decoder_get_gain(OpusDecoder *decoder, opus_int32 *gainQ8dB) {
    return opus_decoder_ctl(decoder, OPUS_GET_GAIN(gainQ8dB));
}
int ve_opus_decoder_get_last_packet_duration(OpusDecoder *decoder, opus_int32 *samples) {
    return opus_decoder_ctl(decoder, OPUS_GET_LAST_PACKET_DURATION(samples));
}
int ve_opus_decoder_reset_state(OpusDecoder *decoder) {
    return opus_decoder_ctl(decoder, OPUS_RESET_STATE);
}
