// SPDX-License-Identifier: Apache-2.0
/// The ALSA PCM calls the device layer makes, one method per `snd_pcm_*` function (plus
/// `poll` and `usleep`), so tests can replace ALSA as swift-system mocks syscalls.
///
/// A public seam on purpose: `ALSAStream` and `DeviceChangeMonitor` are generic over it (never
/// an existential, so the I/O path calls the implementation directly), and an app can run
/// its own streams on a double. It carries no C type: PCMs are `PCMHandle` values and poll
/// descriptors `PollDescriptor`s laid out as `struct pollfd`.
///
/// Return values follow ALSA: 0 or a count on success, a negated errno on failure (`-EPIPE`;
/// `Errno(negatedReturnValue:)` names it). `SystemALSA` calls libasound; AudioDevicesTesting
/// has `ScriptedALSA` (scripted faults) and `VirtualAudioDevice` (null and WAV file devices).
public protocol ALSACalls: Sendable {
    /// `snd_pcm_open` in non-blocking mode; returns the handle or a negative errno.
    func open(device: String, direction: AudioDirection) -> (pcm: PCMHandle?, code: Int32)
    /// Negotiates S16_LE interleaved `parameters` (in: requested, out: negotiated);
    /// returns 0, or a negative errno and the name of the function that failed.
    func configure(_ pcm: PCMHandle, _ parameters: inout StreamParameters) -> (code: Int32, function: String)
    /// `snd_pcm_close`.
    func close(_ pcm: PCMHandle)
    /// `snd_pcm_prepare`.
    func prepare(_ pcm: PCMHandle) -> Int32
    /// `snd_pcm_start`.
    func start(_ pcm: PCMHandle) -> Int32
    /// `snd_pcm_drop`.
    func drop(_ pcm: PCMHandle) -> Int32
    /// `snd_pcm_recover(pcm, error, silent: 1)`; `error` is the negative errno to recover from.
    func recover(_ pcm: PCMHandle, error: Int32) -> Int32
    /// `snd_pcm_resume`.
    func resume(_ pcm: PCMHandle) -> Int32
    /// `snd_pcm_readi`: frames read or a negative errno.
    func read(_ pcm: PCMHandle, into buffer: UnsafeMutablePointer<Int16>, frames: Int) -> Int
    /// `snd_pcm_writei`: frames written or a negative errno.
    func write(_ pcm: PCMHandle, from buffer: UnsafePointer<Int16>, frames: Int) -> Int
    /// `snd_pcm_avail_update`: frames ready or a negative errno.
    func availableFrames(_ pcm: PCMHandle) -> Int
    /// `snd_pcm_delay`: status and delay in frames.
    func delay(_ pcm: PCMHandle) -> (code: Int32, frames: Int)
    /// `snd_pcm_htimestamp`: status and the CLOCK_MONOTONIC time of the last hardware
    /// pointer update, in nanoseconds.
    func timestamp(_ pcm: PCMHandle) -> (code: Int32, nanoseconds: Int64)
    /// `snd_pcm_poll_descriptors_count`.
    func pollDescriptorCount(_ pcm: PCMHandle) -> Int
    /// `snd_pcm_poll_descriptors`: fills `descriptors`, returns how many or a negative errno.
    func pollDescriptors(_ pcm: PCMHandle, into descriptors: UnsafeMutablePointer<PollDescriptor>, count: Int) -> Int
    /// `snd_pcm_poll_descriptors_revents`: status and the PCM's demangled events.
    func pollEvents(_ pcm: PCMHandle, descriptors: UnsafeMutablePointer<PollDescriptor>, count: Int) -> (code: Int32, events: PollEvents)
    /// `poll(2)` on the descriptors of every PCM of a stream: how many are ready (0: timed out,
    /// negative: failed or interrupted).
    ///
    /// The last of the `count` descriptors is the stream's stop waker (an eventfd polled for
    /// `POLLIN`): it becomes readable, and stays so, when `ALSAStream.stop()` is asked for, so a
    /// real `poll` returns at once. A double that does not really wait may ignore it; one that
    /// sleeps should wait on it instead (`ppoll` on that descriptor with its own timeout).
    func poll(_ descriptors: UnsafeMutablePointer<PollDescriptor>, count: Int, timeoutMs: Int32) -> Int32
    /// `usleep(3)` between resume attempts.
    func sleep(microseconds: UInt32)
    /// The sound cards present now (`snd_card_next` and `snd_card_get_name`).
    func cards() -> [AudioCard]
    /// Every PCM: name hints plus each card's devices (`snd_device_name_hint`, `snd_ctl_pcm_info`).
    func devices() -> [AudioDeviceInfo]
}
