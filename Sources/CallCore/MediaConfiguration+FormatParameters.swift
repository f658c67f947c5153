// SPDX-License-Identifier: Apache-2.0
import Opus

extension MediaConfiguration {
    /// This configuration with what we send fitted to the peer's `a=fmtp` (RFC 7587 §6–7):
    /// its parameters say what the peer prefers to receive, and we honour them.
    ///
    /// - In-band FEC only when the peer says it can use it (`useinbandfec=1`) and `inbandFEC`
    ///   allows it; absent means it cannot, and FEC would be bits spent for nothing.
    /// - DTX exactly when the peer prefers it (`usedtx=1`).
    /// - `bitrate` capped at `maxaveragebitrate`; the bitrate adaptation then moves within
    ///   `minimumBitrate`…that cap.
    /// - `maximumBandwidth` narrowed to what `maxplaybackrate` renders
    ///   (`OpusBandwidth(fittingSampleRate:)`: 8 kHz → narrowband, 12 kHz → mediumband,
    ///   16 kHz → wideband, 24 kHz → superwideband, 48 kHz → fullband); never widened.
    /// - CBR when the peer prefers it (`cbr=1`); otherwise `bitrateMode` as configured.
    /// - Mono whatever `stereo` says: this engine captures and sends one channel, which
    ///   every Opus decoder plays (RFC 7587 §7.1 lets a sender send mono to a stereo
    ///   receiver). `sprop-stereo` and `sprop-maxcapturerate` describe what the peer sends;
    ///   our decoder plays whatever arrives, so they change nothing here.
    /// - `frameDurationMs` from the packet time: `ptime` (the SDP `a=ptime` attribute), else
    ///   the fmtp's `ptime`, else as configured — taken when this pipeline sends it (10, 20,
    ///   40, 60 ms), else the nearest supported below it (the shortest, 10 ms, below that),
    ///   never above `maxptime` and not below `minptime` while a supported time satisfies both.
    ///   The call's mixer must run at the resulting frame duration.
    ///
    /// - Throws: `MediaConfigurationError.invalid` naming `ptime` when it is outside 1–120 ms,
    ///   `maxptime` when it is below every packet time we send (10 ms), or the field the
    ///   result fails `validate()` on.
    public func applying(peer: OpusFormatParameters, ptime: Int? = nil) throws(MediaConfigurationError) -> MediaConfiguration {
        if let ptime, !OpusFormatParameters.packetTimeRange.contains(ptime) {
            throw .invalid(field: "ptime", reason: "\(ptime) ms is outside 1–120 ms")
        }
        var sending = self
        sending.inbandFEC = inbandFEC && peer.useInbandFEC == true
        sending.discontinuousTransmission = peer.useDTX == true
        if let cap = peer.maxAverageBitrate { sending.bitrate = min(bitrate, cap) }
        if let rate = peer.maxPlaybackRate {
            let fitting = OpusBandwidth(fittingSampleRate: rate)
            if fitting.passbandHz < maximumBandwidth.passbandHz { sending.maximumBandwidth = fitting }
        }
        if peer.cbr == true { sending.bitrateMode = .cbr }
        sending.frameDurationMs = try Self.packetTime(preferring: ptime ?? peer.ptimeMs ?? frameDurationMs,
                                                      atLeast: peer.minPtimeMs, atMost: peer.maxPtimeMs)
        try sending.validate()
        return sending
    }

    /// What this side asks for in its own `a=fmtp` (the fmtp we offer or answer with):
    /// in-band FEC, which our jitter buffer rebuilds lost packets from; DTX when we use it
    /// ourselves; our sample rate as `maxplaybackrate` and `sprop-maxcapturerate` when below
    /// 48 kHz. Mono, VBR and no bitrate cap are RFC 7587's defaults and go unsaid.
    public var formatParameters: OpusFormatParameters {
        var ours = OpusFormatParameters()
        if sampleRate < 48_000 {
            ours.maxPlaybackRate = sampleRate
            ours.spropMaxCaptureRate = sampleRate
        }
        ours.useInbandFEC = true
        if discontinuousTransmission { ours.useDTX = true }
        return ours
    }

    /// Packet times this pipeline sends, shortest first (`OpusStreamFormat`).
    private static let packetTimesMs = [10, 20, 40, 60].filter { OpusStreamFormat.isSupported(packetTimeMs: $0) }

    /// The longest packet time we send at or below `preferred` (the shortest above it when
    /// none is), among those within `minimum…maximum` — or within `…maximum` alone when
    /// `minimum` leaves none.
    private static func packetTime(preferring preferred: Int, atLeast minimum: Int?, atMost maximum: Int?) throws(MediaConfigurationError) -> Int {
        let allowed = packetTimesMs.filter { $0 <= (maximum ?? .max) }
        guard !allowed.isEmpty else {
            throw .invalid(field: "maxptime", reason: "\(maximum ?? 0) ms is below every packet time this pipeline sends (10, 20, 40, 60 ms)")
        }
        let wanted = allowed.filter { $0 >= (minimum ?? 0) }
        let candidates = wanted.isEmpty ? allowed : wanted
        return candidates.last { $0 <= preferred } ?? candidates[0]
    }
}
