// SPDX-License-Identifier: Apache-2.0
import JitterBuffer

/// One way of running ours (`AdaptiveJitterBuffer`), and how its late loss is counted.
public struct PlayoutMode: Sendable, Equatable {
    /// Short name for tables and plots.
    public var label: String
    /// The buffer's policy for overtaken packets.
    public var policy: LatePacketPolicy
    /// Whether a packet rebuilt from the next packet's FEC counts as played.
    public var creditsFEC: Bool

    /// A mode.
    public init(label: String, policy: LatePacketPolicy, creditsFEC: Bool) {
        self.label = label
        self.policy = policy
        self.creditsFEC = creditsFEC
    }

    /// How late loss is counted, for tables.
    public var accounting: String { creditsFEC ? "FEC recovery credited" : "own payloads only" }

    /// The default policy, judged by what the listener gets: a frame rebuilt from FEC is the
    /// sender's own coding of it.
    public static let fecFirst = PlayoutMode(label: "ours", policy: .recoverFromFECFirst, creditsFEC: true)
    /// The waiting policy, judged as strictly as speex and the oracle (which have no FEC): only
    /// a packet whose own payload played counts.
    public static let waiting = PlayoutMode(label: "ours, waiting", policy: .waitForPacket, creditsFEC: false)
    /// Both, in table order.
    public static let all = [fecFirst, waiting]
}
