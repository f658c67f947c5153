// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The repository's PulseAudio null-sink loopback (`scripts/pulseaudio-loopback`), for the
/// tests that use a real ALSA device: what is played on the `pulse` PCM comes back on its
/// capture. Hold `RealDeviceLock` around any use, and around `run("stop")` and the restart.
public enum PulseAudioLoopback {
    /// The ALSA PCM the loopback is reached through.
    public static let device = "pulse"

    /// Whether the real-device tests must run (and fail without the loopback) rather than
    /// skip: `VOICEENGINE_REQUIRE_ALSA=1`, as CI sets.
    public static let required = ProcessInfo.processInfo.environment["VOICEENGINE_REQUIRE_ALSA"] == "1"

    /// Runs `scripts/pulseaudio-loopback command` (start, stop) with a 20 s limit; true when it
    /// exits 0.
    @discardableResult
    public static func run(_ command: String) -> Bool {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/pulseaudio-loopback")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["20", script.path, command]
        process.standardOutput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
