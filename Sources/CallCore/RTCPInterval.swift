// SPDX-License-Identifier: Apache-2.0
/// The RTCP transmission interval of RFC 3550 §6.3 and Appendix A.7: the bandwidth share
/// (5 % of the session, a quarter of it for senders when they are few), the average compound
/// size, the minimum interval (5 s, half of it before the first report, or the reduced minimum
/// of §6.2: 360 / session kb/s seconds), randomised over [0.5, 1.5] and divided by e − 3/2 to
/// compensate for timer reconsideration. A pure function of its inputs.
struct RTCPInterval {
    /// Session participants (ourselves included).
    var members: Int
    /// Participants that sent RTP recently (ourselves included when we did).
    var senders: Int
    /// RTCP bandwidth: 5 % of the session bandwidth, in bytes per second.
    var rtcpBytesPerSecond: Double
    /// Whether we sent RTP since the report before last.
    var weSent: Bool
    /// Average compound packet size with UDP and IP headers, in bytes.
    var averagePacketBytes: Double
    /// Whether no report has been sent yet.
    var initial: Bool
    /// The minimum interval in seconds (5, or the reduced minimum).
    var minimumSeconds: Double

    /// e − 3/2: RFC 3550 A.7's compensation for timer reconsideration.
    static let compensation = 2.71828 - 1.5

    /// The deterministic part of the interval, in seconds, before randomisation.
    var baseSeconds: Double {
        var bandwidth = rtcpBytesPerSecond
        var participants = Double(members)
        if Double(senders) <= Double(members) * 0.25 {
            if weSent {
                bandwidth *= 0.25
                participants = Double(senders)
            } else {
                bandwidth *= 0.75
                participants -= Double(senders)
            }
        }
        let minimum = initial ? minimumSeconds / 2 : minimumSeconds
        guard bandwidth > 0 else { return minimum }
        return max(minimum, averagePacketBytes * participants / bandwidth)
    }

    /// The interval in seconds for a uniform draw `random` in [0, 1).
    func seconds(random: Double) -> Double {
        baseSeconds * (random + 0.5) / Self.compensation
    }
}
