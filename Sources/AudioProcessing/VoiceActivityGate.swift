// SPDX-License-Identifier: Apache-2.0
/// The voice-activity decision speexdsp's preprocessor makes from its speech probability, made
/// here instead: speech starts when the frame's probability reaches `startPercent` and goes on
/// while it stays at `continuePercent` or more.
///
/// Why not speexdsp's own: switching its VAD on (`SPEEX_PREPROCESS_SET_VAD`) prints "The VAD has
/// been replaced by a hack pending a complete rewrite" on the process's stderr every time, and a
/// library prints nothing on its own. The probability it decides from is computed whether its VAD
/// is on or not (`SPEEX_PREPROCESS_GET_PROB`), so the decision is the same, its thresholds (35 %
/// and 20 %, speexdsp's defaults) compared with the whole percent speexdsp reports.
struct VoiceActivityGate {
    /// The probability (percent) at which a pause becomes speech.
    let startPercent: Int32
    /// The probability (percent) speech needs to go on.
    let continuePercent: Int32
    /// Whether the last frame was speech.
    private(set) var isSpeech = false

    init(startPercent: Int32 = 35, continuePercent: Int32 = 20) {
        self.startPercent = startPercent
        self.continuePercent = continuePercent
    }

    /// Decides the frame whose speech probability is `percent`.
    mutating func decide(speechProbabilityPercent percent: Int32) -> Bool {
        isSpeech = percent >= (isSpeech ? continuePercent : startPercent)
        return isSpeech
    }

    /// Forgets the last decision (a new configuration, a new stream).
    mutating func reset() { isSpeech = false }
}
