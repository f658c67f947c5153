// SPDX-License-Identifier: Apache-2.0
/// The coding layer an Opus packet uses, from its TOC byte (RFC 6716 §3.1).
public enum OpusMode: Sendable, Hashable, CaseIterable {
    /// SILK only (linear prediction; speech, up to wideband). Can carry in-band FEC.
    case silk
    /// SILK below 8 kHz plus CELT above (super-wideband/fullband speech). Can carry in-band FEC.
    case hybrid
    /// CELT only (MDCT; music, low delay, 2.5/5 ms frames). Never carries in-band FEC.
    case celt

    /// The mode for TOC configuration number `config` (0…31).
    init(config: Int) {
        switch config {
        case 0...11: self = .silk
        case 12...15: self = .hybrid
        default: self = .celt
        }
    }
}
