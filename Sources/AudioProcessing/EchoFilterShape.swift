// SPDX-License-Identifier: Apache-2.0
/// What the linear echo filter has learnt, as evidence of an echo path that needs no pause of
/// the near end: the share of the filter's impulse-response energy in its strongest 10 ms
/// (`concentration`), read from speexdsp every 100 ms.
///
/// A real path is a direct sound and a decaying tail: the filter converges to a response whose
/// energy sits in a few milliseconds. Without one, the filter fits the near end's chance
/// correlation with the far end, spread over the whole tail. Measured at 48 kHz with a 200 ms
/// tail and both ends talking from the first word (the speech fixtures, both talkers): with no
/// echo path the concentration falls to 0.19–0.30 after 2 s of far-end speech; with the
/// demo's path (30 ms, −15 dB) it stays at or climbs to 0.47–0.64 by then and 0.6–0.8 later;
/// in a room (120 ms, −6 dB, RT60 300 ms) 0.6–0.85; with the echo alone 0.7–0.9 within half a
/// second. In its first second after a reset the response reads 0.4–0.8 whatever the path (a
/// few updates are concentrated by chance): it counts only once the far end has played for
/// `settlingMs` since the filter was last reset.
///
/// All state is allocated in `init`; `update` allocates nothing.
final class EchoFilterShape {
    /// Far-end playing time after a filter reset before the shape counts, in milliseconds.
    static let settlingMs = 2_000
    /// How often the impulse response is read, in milliseconds.
    static let readingIntervalMs = 100
    /// The window whose energy share is the concentration, in milliseconds.
    static let windowMs = 10

    /// Share (0…1) of the response's energy in its strongest `windowMs`, at the last reading
    /// (0 before the first, or for a filter that has learnt nothing).
    private(set) var concentration = 0.0
    /// Whether the far end has played for `settlingMs` since the filter was last reset, so
    /// `concentration` is evidence.
    var isSettled: Bool { playingFrames >= settlingFrames }
    /// Whether the response shows a path: concentrated at `settledConcentration` once settled,
    /// or at `quickConcentration` over `quickReadings` readings in a row before (the echo
    /// alone makes the filter converge within half a second; the chance fit of a near-end
    /// talker reads that high for at most two readings, while the filter is new).
    var showsPath: Bool {
        isSettled ? concentration >= Self.settledConcentration : quickReadingsInARow >= Self.quickReadings
    }
    /// Whether the settled response shows no path: its energy spread, concentrated below
    /// `absenceConcentration`.
    var showsNoPath: Bool { isSettled && concentration < Self.absenceConcentration }

    /// Concentration of a settled response that shows a path: a real one converges to
    /// 0.5–0.9, none to 0.2–0.3.
    static let settledConcentration = 0.5
    /// Concentration that shows a path before the response has settled, held…
    static let quickConcentration = 0.7
    /// …over this many readings in a row (half a second).
    static let quickReadings = 5
    /// Concentration of a settled response below which it shows no path.
    static let absenceConcentration = 0.35

    private let echo: SpeexEchoState
    private let response: UnsafeMutablePointer<Int32>
    private let responseCount: Int
    private let windowCount: Int
    private let readingFrames: Int
    private let settlingFrames: Int
    private var framesSinceReading = 0
    private var playingFrames = 0
    private var quickReadingsInARow = 0

    init(echo: SpeexEchoState, sampleRate: Int, frameDurationMs: Int) {
        self.echo = echo
        responseCount = max(1, echo.impulseResponseCount)
        response = .allocate(capacity: responseCount)
        response.initialize(repeating: 0, count: responseCount)
        windowCount = max(1, min(responseCount, sampleRate * Self.windowMs / 1_000))
        readingFrames = max(1, Self.readingIntervalMs / frameDurationMs)
        settlingFrames = max(1, Self.settlingMs / frameDurationMs)
    }

    deinit { response.deallocate() }

    /// Takes one frame after the filter ran: `farEndPlaying` as `EchoPathPresence` judged it.
    func update(farEndPlaying: Bool) {
        if farEndPlaying, playingFrames < settlingFrames { playingFrames += 1 }
        framesSinceReading += 1
        guard framesSinceReading >= readingFrames else { return }
        framesSinceReading = 0
        echo.impulseResponse(into: response)
        var total = 0.0
        var window = 0.0
        var best = 0.0
        for index in 0..<responseCount {
            let value = Double(response[index])
            window += value * value
            total += value * value
            if index >= windowCount {
                let leaving = Double(response[index - windowCount])
                window -= leaving * leaving
            }
            best = max(best, window)
        }
        concentration = total > 0 ? min(1, best / total) : 0
        quickReadingsInARow = concentration >= Self.quickConcentration ? quickReadingsInARow + 1 : 0
    }

    /// The filter was reset: its shape is young again.
    func filterReset() {
        playingFrames = 0
        framesSinceReading = 0
        concentration = 0
        quickReadingsInARow = 0
    }
}
