// SPDX-License-Identifier: Apache-2.0
/// How soon a time-stretch `DecisionLogic` decided must be carried out.
///
/// Removing or inserting a pitch period inside a word is heard (a syllable hurried or drawled);
/// in a pause it is not. So a stretch that only follows the target waits for a quiet frame,
/// and only one the delay cannot wait for happens at once.
enum StretchUrgency: Equatable {
    /// Stretch the next quiet frame (`QuietFrameDetector`); until then play frames as they are,
    /// for at most `AdaptiveJitterBuffer.maximumStretchDeferralMs`.
    case whenQuiet
    /// Stretch this frame: the delay is far above the target, or so far below it that the next
    /// packet is about to be missed.
    case now
}
