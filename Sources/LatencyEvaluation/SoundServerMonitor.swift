// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Foundation

/// What a sound server played, captured back from its loopback (a PulseAudio null sink whose
/// monitor is the default source, `scripts/pulseaudio-loopback`) through an ALSA PCM of its
/// own, with the time each sample passed the server: `MouthToEarMeasurement`'s ear when Bob
/// plays on a real device.
final class SoundServerMonitor {
    private let stream: ALSAStream<SystemALSA>
    private let rate: Int
    /// Everything captured so far.
    private(set) var samples: [Int16] = []
    /// The earliest any sample could have been captured, as the transfers seen so far bound
    /// it: the least of (transfer time − its frame count's duration), ns. A server delivers
    /// capture in bursts (PulseAudio's first periods come late, then several at once), so a
    /// single transfer's time says little; the least delayed one says most.
    private var originNanoseconds = Double.infinity

    /// Opens `device` for capture at `rate` in periods of `periodMs` and starts it, its ring
    /// long enough for `seconds` (it is drained far more often).
    init(device: String, rate: Int, periodMs: Int, seconds: Int) throws {
        self.rate = rate
        stream = try ALSAStream(device: device, directions: .capture,
                                parameters: StreamParameters(sampleRate: rate, channelCount: 1, periodMs: periodMs, periods: 4),
                                ringMs: (seconds + 2) * 1_000, calls: SystemALSA())
        do {
            try stream.start(thread: .realtime(priority: 10))
        } catch {
            stream.stop()
            throw error
        }
    }

    deinit { stream.stop() }

    /// Takes what was captured since the last call, and the transfer's timing.
    func drain() {
        samples += stream.read()
        let statistics = stream.statistics(.capture)
        guard statistics.frames > 0, statistics.lastTransferNanoseconds > 0 else { return }
        originNanoseconds = min(originNanoseconds,
                                Double(statistics.lastTransferNanoseconds) - Double(statistics.frames) * 1e9 / Double(rate))
    }

    /// Stops capturing and takes the rest.
    func stop() {
        drain()
        stream.stop()
        samples += stream.read()
    }

    /// When sample `index` of `samples` passed the server, ns on CLOCK_MONOTONIC: the earliest
    /// its transfer allows (the server's own capture latency, which no ALSA call reports, is
    /// left in); nil before anything was captured. Assumes no capture was dropped, which the
    /// ring's length and the drains guarantee.
    func time(ofSample index: Int) -> Int64? {
        guard originNanoseconds.isFinite else { return nil }
        return Int64(originNanoseconds + Double(index) * 1e9 / Double(rate))
    }
}
