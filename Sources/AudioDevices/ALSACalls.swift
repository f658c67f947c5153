#if canImport(Glibc)
import Glibc
#endif

/// The ALSA PCM calls the device layer makes, one method per `snd_pcm_*` function (plus
/// `poll` and `usleep`), so tests can replace ALSA as swift-system mocks syscalls.
///
/// Return values follow ALSA: a negative errno on failure. Streams are generic over this
/// protocol (never an existential), so the I/O path calls the implementation directly.
/// `SystemALSA` calls libasound; `ScriptedALSA` plays back scripted faults;
/// `NullAudioDevice` and `WAVFileAudioDevice` are devices without ALSA.
public protocol ALSACalls: Sendable {
    /// `snd_pcm_open` in non-blocking mode; returns the handle or a negative errno.
    func open(device: String, direction: AudioDirection) -> (pcm: OpaquePointer?, code: Int32)
    /// Negotiates S16_LE interleaved `parameters` (in: requested, out: negotiated);
    /// returns 0, or a negative errno and the name of the function that failed.
    func configure(_ pcm: OpaquePointer, _ parameters: inout StreamParameters) -> (code: Int32, function: String)
    /// `snd_pcm_close`.
    func close(_ pcm: OpaquePointer)
    /// `snd_pcm_prepare`.
    func prepare(_ pcm: OpaquePointer) -> Int32
    /// `snd_pcm_start`.
    func start(_ pcm: OpaquePointer) -> Int32
    /// `snd_pcm_drop`.
    func drop(_ pcm: OpaquePointer) -> Int32
    /// `snd_pcm_recover(pcm, error, silent: 1)`.
    func recover(_ pcm: OpaquePointer, error: Int32) -> Int32
    /// `snd_pcm_resume`.
    func resume(_ pcm: OpaquePointer) -> Int32
    /// `snd_pcm_readi`: frames read or a negative errno.
    func read(_ pcm: OpaquePointer, into buffer: UnsafeMutablePointer<Int16>, frames: Int) -> Int
    /// `snd_pcm_writei`: frames written or a negative errno.
    func write(_ pcm: OpaquePointer, from buffer: UnsafePointer<Int16>, frames: Int) -> Int
    /// `snd_pcm_avail_update`: frames ready or a negative errno.
    func availableFrames(_ pcm: OpaquePointer) -> Int
    /// `snd_pcm_delay`: status and delay in frames.
    func delay(_ pcm: OpaquePointer) -> (code: Int32, frames: Int)
    /// `snd_pcm_htimestamp`: status and the CLOCK_MONOTONIC time of the last hardware
    /// pointer update, in nanoseconds.
    func timestamp(_ pcm: OpaquePointer) -> (code: Int32, nanoseconds: Int64)
    /// `snd_pcm_poll_descriptors_count`.
    func pollDescriptorCount(_ pcm: OpaquePointer) -> Int
    /// `snd_pcm_poll_descriptors`: fills `fds`, returns how many or a negative errno.
    func pollDescriptors(_ pcm: OpaquePointer, into fds: UnsafeMutablePointer<pollfd>, count: Int) -> Int
    /// `snd_pcm_poll_descriptors_revents`: status and the PCM's demangled events.
    func pollEvents(_ pcm: OpaquePointer, fds: UnsafeMutablePointer<pollfd>, count: Int) -> (code: Int32, events: Int16)
    /// `poll(2)` on the descriptors of every PCM of a stream.
    func poll(_ fds: UnsafeMutablePointer<pollfd>, count: Int, timeoutMs: Int32) -> Int32
    /// `usleep(3)` between resume attempts.
    func sleep(microseconds: UInt32)
    /// The sound cards present now (`snd_card_next` and `snd_card_get_name`).
    func cards() -> [AudioCard]
    /// Every PCM: name hints plus each card's devices (`snd_device_name_hint`, `snd_ctl_pcm_info`).
    func devices() -> [AudioDeviceInfo]
}
