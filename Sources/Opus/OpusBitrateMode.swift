// SPDX-License-Identifier: Apache-2.0
/// How the encoder spends its bitrate (`OPUS_SET_VBR` together with `OPUS_SET_VBR_CONSTRAINT`).
public enum OpusBitrateMode: Sendable, Hashable, CaseIterable {
    /// Unconstrained variable bitrate: packet sizes follow the signal.
    case vbr
    /// Variable bitrate bounded to about one frame of buffering (libopus's default).
    case constrainedVBR
    /// Constant bitrate: every packet of a given duration has the same size. Hides speech
    /// activity from packet sizes at the cost of quality.
    case cbr
}
