// SPDX-License-Identifier: Apache-2.0
/// Why a call ended. 1–5 are CXCallEndedReason's names and raw values (what the app reports
/// with `reportCall(with:endedAt:reason:)`, or what the system decides: unanswered after the
/// ring time, failed on reset or a failed answer). `local` (0) is ours: CallKit gives no
/// reason when this side hangs up with an EndCallAction, and every ended call here has one.
public enum CallEndedReason: Int, Sendable, CaseIterable, Hashable {
    /// This side hung up: an EndCallAction was fulfilled (ours, 0).
    case local = 0
    /// The call failed: an error, a failed or timed-out start or answer, a reset (1).
    case failed = 1
    /// The other party hung up (2).
    case remoteEnded = 2
    /// Nobody answered in time (3).
    case unanswered = 3
    /// Answered on another device (4).
    case answeredElsewhere = 4
    /// Declined on another device (5).
    case declinedElsewhere = 5
}
