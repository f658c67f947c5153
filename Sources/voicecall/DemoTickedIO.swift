// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
import AudioSession
import Locking

/// `--fast`'s device I/O: the virtual-clock loop runs a side's media only while its call session
/// has started this, so the flow gates audio exactly as it gates a `VoiceEngine`. (An engine
/// cannot run on a virtual clock: its threads read CLOCK_MONOTONIC.)
final class DemoTickedIO: AudioSessionIO {
    let plays = true
    let records = true
    private let running = Locked(false)

    var isRunningIO: Bool { running.withLock { $0 } }

    func startIO(processing: ProcessingConfiguration, preferences: AudioSession.Preferences) throws(AudioSessionError) -> AudioSession.Hardware {
        running.withLock { $0 = true }
        return AudioSession.Hardware(sampleRate: 48_000, ioBufferDuration: 0.01, inputNumberOfChannels: 1, outputNumberOfChannels: 1)
    }

    func stopIO() { running.withLock { $0 = false } }

    func setDeviceLossHandler(_ handler: (@Sendable () -> Void)?) {}
}
