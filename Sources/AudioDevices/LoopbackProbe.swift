// SPDX-License-Identifier: Apache-2.0
internal import Glibc

/// What a loopback probe measured.
public struct LoopbackResult: Sendable {
    /// Everything captured during the probe.
    public var captured: [Int16]
    /// Round trip from the signal's first frame being written to the playback PCM to it being
    /// read from the capture PCM, in frames (nil if the signal was not found). It includes
    /// both device buffers (`snd_pcm_delay` of each side) and the loop between them.
    public var latencyFrames: Int?
    /// Normalised cross-correlation of the captured signal with what was played (1 = identical
    /// up to gain).
    public var correlation: Double
    /// The stream's sample rate.
    public var sampleRate: Int

    /// The round trip in milliseconds.
    public var latencyMs: Double? { latencyFrames.map { Double($0) * 1_000 / Double(sampleRate) } }
}

/// Plays a known signal through a duplex stream and finds it again in the capture: the
/// round-trip latency of a loopback (a PulseAudio null sink and its monitor, a cable).
public enum LoopbackProbe {
    /// A linear chirp (sweep) of `durationMs` from `startHz` to `endHz` at `amplitude`:
    /// unlike a steady tone it correlates with itself at one lag only.
    public static func chirp(sampleRate: Int, durationMs: Int = 300, startHz: Double = 300, endHz: Double = 3_000,
                             amplitude: Double = 12_000) -> [Int16] {
        let count = sampleRate * durationMs / 1_000
        let duration = Double(count) / Double(sampleRate)
        return (0..<count).map { index in
            let t = Double(index) / Double(sampleRate)
            let phase = 2 * Double.pi * (startHz * t + (endHz - startHz) * t * t / (2 * duration))
            let fade = min(1, Double(min(index, count - index)) / (0.005 * Double(sampleRate)))
            return Int16(amplitude * fade * sin(phase))
        }
    }

    /// Starts `stream` (duplex, mono or interleaved), plays `leadInMs` of silence then `signal`
    /// then silence, captures until `maximumLatencyMs` after the signal or `timeoutSeconds`,
    /// stops the stream and locates the signal in the capture.
    public static func run<Calls: ALSACalls>(_ stream: ALSAStream<Calls>, signal: [Int16], leadInMs: Int = 200,
                                             maximumLatencyMs: Int = 500, timeoutSeconds: Double = 10,
                                             thread: IOThreadMode = .realtime(priority: 10)) throws(AudioDeviceError) -> LoopbackResult {
        guard let parameters = stream.parameters(for: .playback), stream.parameters(for: .capture) != nil else {
            throw AudioDeviceError(operation: "LoopbackProbe.run", code: .invalidArgument, device: stream.device)
        }
        let channels = parameters.channelCount
        let leadIn = parameters.sampleRate * leadInMs / 1_000 * channels
        let tail = parameters.sampleRate * maximumLatencyMs / 1_000 * channels
        let playback = [Int16](repeating: 0, count: leadIn) + signal + [Int16](repeating: 0, count: tail)
        var written = stream.write(playback)
        let prefill = RecoveryPolicy().playbackPrefillPeriods * parameters.periodFrames * channels
        var captured: [Int16] = []
        captured.reserveCapacity(playback.count + prefill + parameters.sampleRate * channels)
        try stream.start(thread: thread)
        // Anchors each side's frame count to the clock once the reference part of the signal
        // has been played, before any later xrun can shift one side against the other.
        let signalEnd = (prefill + leadIn + min(signal.count, 4_800 * channels)) / channels
        var anchors: (play: StreamStatistics, record: StreamStatistics)? = nil
        let deadline = MonotonicClock.nanoseconds + Int64(timeoutSeconds * 1e9)
        while captured.count < playback.count + prefill && MonotonicClock.nanoseconds < deadline && !stream.isLost {
            if written < playback.count {
                written += playback.withUnsafeBufferPointer { stream.write(UnsafeBufferPointer(rebasing: $0[written...])) }
            }
            captured += stream.read()
            if anchors == nil, stream.statistics(.playback).frames >= signalEnd {
                anchors = (stream.statistics(.playback), stream.statistics(.capture))
            }
            usleep(2_000)
        }
        stream.stop()
        captured += stream.read()
        let found = locate(signal, in: captured, channels: channels)
        // Each side's frames pass the application boundary at the device rate; the last
        // transfer anchors its frame count to the monotonic clock.
        let (play, record) = anchors ?? (stream.statistics(.playback), stream.statistics(.capture))
        let rate = Double(parameters.sampleRate)
        let playedAt = Double(play.lastTransferNanoseconds) / 1e9 - Double(play.frames - (prefill + leadIn) / channels) / rate
        let latency = found.map { found -> Int in
            let capturedAt = Double(record.lastTransferNanoseconds) / 1e9 - Double(record.frames - found.position / channels) / rate
            return Int(((capturedAt - playedAt) * rate).rounded())
        }
        return LoopbackResult(captured: captured, latencyFrames: latency,
                              correlation: found?.correlation ?? 0, sampleRate: parameters.sampleRate)
    }

    /// Finds `reference` in `signal`: its loudest 4,800-frame window is searched for on every
    /// 4th frame, then refined at full rate. Returns the sample position where `reference`
    /// starts in `signal` and the normalised correlation of the match.
    public static func locate(_ reference: [Int16], in signal: [Int16], channels: Int = 1) -> (position: Int, correlation: Double)? {
        let length = min(reference.count, 4_800 * channels)
        guard length > 0, signal.count >= length else { return nil }
        var window = 0, loudest = -1.0
        for start in stride(from: 0, through: reference.count - length, by: 480 * channels) {
            var energy = 0.0
            for index in stride(from: start, to: start + length, by: 4) { energy += Double(reference[index]) * Double(reference[index]) }
            if energy > loudest { (window, loudest) = (start, energy) }
        }
        guard let match = locateWindow(Array(reference[window..<window + length]), in: signal, channels: channels),
              match.position >= window else { return nil }
        return (match.position - window, match.correlation)
    }

    private static func locateWindow(_ window: [Int16], in signal: [Int16], channels: Int) -> (position: Int, correlation: Double)? {
        let length = window.count
        let ref = window.map(Double.init)
        let sig = signal.map(Double.init)
        func correlation(at lag: Int, step: Int) -> Double {
            var cross = 0.0, refEnergy = 0.0, sigEnergy = 0.0
            var index = 0
            while index < length {
                let r = ref[index], s = sig[lag + index]
                cross += r * s
                refEnergy += r * r
                sigEnergy += s * s
                index += step
            }
            return refEnergy > 0 && sigEnergy > 0 ? cross / (refEnergy * sigEnergy).squareRoot() : 0
        }
        let lastLag = signal.count - length
        var best = (position: 0, correlation: -1.0)
        var lag = 0
        while lag <= lastLag {
            let value = correlation(at: lag, step: 4 * channels)
            if value > best.correlation { best = (lag, value) }
            lag += 4 * channels
        }
        let coarse = best.position
        best.correlation = -1
        for lag in stride(from: max(0, coarse - 8 * channels), through: min(lastLag, coarse + 8 * channels), by: channels) {
            let value = correlation(at: lag, step: 1)
            if value > best.correlation { best = (lag, value) }
        }
        return best.correlation > 0 ? best : nil
    }
}
