// SPDX-License-Identifier: Apache-2.0
/// What a `VoiceEngine` does when its audio device is lost (unplugged, its daemon gone).
public enum DeviceLossPolicy: Sendable {
    /// Device I/O stops and the engine reports `.audioStopped`; calls stay, their network
    /// side running, for the application (its audio session) to move or end.
    case stopAudio
    /// Device I/O moves to another device (`.deviceSwitched`), the calls with it; when that
    /// one cannot be opened either, as `stopAudio`.
    case switchTo(AudioDeviceOpener)
}
