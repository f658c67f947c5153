import Locking
import MediaEngine
import Synchronization

/// The engine hook for SetTranslating and SetMuted: the `TranslationEngine` a call's media
/// carries for its whole life, installed before the media joins the engine.
///
/// Why: `CallMedia.translationEngine` may change only while the audio side is stopped, but a
/// call starts and stops translating while audio runs. This switch stays in place and turns
/// translation on and off with atomics the audio thread reads:
/// - not translating: the microphone passes through, or silence while muted — what
///   `CallMedia` sends without a translator;
/// - translating: the microphone goes to the app's translator and its speech is sent, also
///   while muted (only the raw microphone is held back; the translator still hears it, as
///   `CallMedia` does with a translator of its own).
///
/// Translators are kept in fixed slots that are written once and never released before the
/// switch (so the audio thread never drops the last reference); a call may use `capacity`.
/// `consume` and `produce` run on the audio thread: no lock, no allocation.
final class TranslationSwitch: TranslationEngine, @unchecked Sendable {
    // @unchecked: slots are written by the control side before `current` publishes them
    // (release/acquire) and never written again; `microphone` is touched by the audio thread only.

    /// Translators one call may install over its life.
    static let capacity = 16

    private let slots: UnsafeMutablePointer<(any TranslationEngine)?>
    /// The slot in use, or −1 when not translating.
    private let current = Atomic<Int>(-1)
    private let muted = Atomic<Bool>(false)
    /// Slots written so far (control side, under the lock).
    private let written = Locked(0)
    private let microphone: UnsafeMutableBufferPointer<Int16>
    private var microphoneCount = 0

    init(maximumFrameSamples: Int) {
        slots = .allocate(capacity: Self.capacity)
        slots.initialize(repeating: nil, count: Self.capacity)
        microphone = .allocate(capacity: maximumFrameSamples)
        microphone.initialize(repeating: 0)
    }

    deinit {
        slots.deinitialize(count: Self.capacity)
        slots.deallocate()
        microphone.deallocate()
    }

    /// Translates with `translator` from the next frame on.
    func translate(with translator: any TranslationEngine) throws(ActionError) {
        let slot = try written.withLock { (count: inout Int) throws(ActionError) -> Int in
            guard count < Self.capacity else { throw .tooManyTranslators(capacity: Self.capacity) }
            slots[count] = translator
            count += 1
            return count - 1
        }
        current.store(slot, ordering: .releasing)
    }

    /// Stops translating from the next frame on.
    func stopTranslating() { current.store(-1, ordering: .releasing) }

    /// Whether the raw microphone is held back.
    var isMuted: Bool {
        get { muted.load(ordering: .relaxed) }
        set { muted.store(newValue, ordering: .relaxed) }
    }

    /// Whether a translator speaks for the call.
    var isTranslating: Bool { current.load(ordering: .acquiring) >= 0 }

    func consume(microphone frame: UnsafeBufferPointer<Int16>) {
        let slot = current.load(ordering: .acquiring)
        if slot >= 0, let translator = slots[slot] {
            translator.consume(microphone: frame)
            microphoneCount = 0
        } else {
            microphoneCount = min(frame.count, microphone.count)
            _ = UnsafeMutableBufferPointer(rebasing: microphone[0..<microphoneCount]).update(fromContentsOf: frame.prefix(microphoneCount))
        }
    }

    func produce(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        let slot = current.load(ordering: .acquiring)
        if slot >= 0, let translator = slots[slot] { return translator.produce(into: frame) }
        guard !muted.load(ordering: .relaxed), microphoneCount == frame.count else { return false }
        _ = frame.update(fromContentsOf: UnsafeBufferPointer(rebasing: microphone[0..<microphoneCount]))
        return true
    }
}
