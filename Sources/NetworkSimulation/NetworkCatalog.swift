// SPDX-License-Identifier: Apache-2.0
/// Networks by name: the G.1050 core classes and the impaired links the listening benchmark
/// compares receivers on, defined once for the benchmark, `voicecall relay` and the tests.
///
/// | name | network |
/// |---|---|
/// | `clean` | what a relay on loopback adds: 1 ms, a tenth of a ms of jitter |
/// | `A` … `H` | G.1050's core classes (`NetworkProfile.classA` …) |
/// | `random:P` | P % of packets lost at random on a 20 ms link with 1 ms of jitter |
/// | `bursty:P` | P % lost in bursts of 3 packets on average, same link |
/// | `jitter:MS` | 20 ms link, Pareto queueing of mean MS ms (packets overtake), 1 % loss |
/// | `wifi` | 10 ms link, 2 % loss in pairs, 4 ms jitter, four 150–400 ms delay spikes a minute |
public enum NetworkCatalog {
    /// The largest loss percentage a name may ask for (every packet lost is no network).
    public static let maximumLossPercent = 99.0
    /// The largest mean jitter a name may ask for, ms.
    public static let maximumJitterMs = 2_000.0

    /// What a relay on loopback adds: 1 ms, a tenth of a ms of jitter.
    public static let clean = NetworkProfile(name: "clean", baseDelayMs: 1...1, loss: GilbertElliottLoss(lossRate: 0, meanBurstPackets: 1),
                                             jitter: ParetoJitter(meanMs: 0.1))

    /// `percent` % random loss (independent packets) on a 20 ms link with 1 ms of jitter.
    public static func randomLoss(percent: Double) -> NetworkProfile {
        lossy("random:\(formatted(percent))", percent: percent, meanBurstPackets: 1)
    }

    /// `percent` % loss in bursts of `meanBurstPackets` on average on a 20 ms link with 1 ms of jitter.
    public static func burstyLoss(percent: Double, meanBurstPackets: Double = 3) -> NetworkProfile {
        lossy("bursty:\(formatted(percent))", percent: percent, meanBurstPackets: meanBurstPackets)
    }

    /// A 20 ms link with Pareto queueing of mean `meanMs` (later packets overtake earlier ones
    /// once it exceeds the packet interval) and `lossPercent` % random loss.
    public static func jitter(meanMs: Double, lossPercent: Double = 1) -> NetworkProfile {
        NetworkProfile(name: "jitter:\(formatted(meanMs))", baseDelayMs: 20...20,
                       loss: GilbertElliottLoss(lossRate: lossPercent / 100, meanBurstPackets: 1), jitter: ParetoJitter(meanMs: meanMs))
    }

    /// A Wi-Fi mix: 10 ms, 2 % loss in pairs, 4 ms of jitter, four 150–400 ms delay spikes a minute.
    public static let wifi = NetworkProfile(name: "wifi", baseDelayMs: 10...10, loss: GilbertElliottLoss(lossRate: 0.02, meanBurstPackets: 2),
                                            jitter: ParetoJitter(meanMs: 4), spikesPerMinute: 4, spikeDurationMs: 150...400)

    /// The network a name gives (see the table; class letters in either case).
    /// - Throws: `NetworkCatalogError` for an unknown name or a number out of range.
    public static func profile(named name: String) throws(NetworkCatalogError) -> NetworkProfile {
        let lowered = name.lowercased()
        if lowered == "clean" { return clean }
        if lowered == "wifi" { return wifi }
        if name.count == 1, let profile = NetworkProfile.g1050Class(named: name) { return profile }
        guard let colon = lowered.firstIndex(of: ":") else { throw .unknownName(name) }
        let kind = lowered[..<colon], text = String(lowered[lowered.index(after: colon)...])
        switch kind {
        case "random", "bursty":
            let percent = try number(text, in: 0...maximumLossPercent, name: name)
            return kind == "random" ? randomLoss(percent: percent) : burstyLoss(percent: percent)
        case "jitter":
            return jitter(meanMs: try number(text, in: 0...maximumJitterMs, name: name))
        default:
            throw .unknownName(name)
        }
    }

    /// Every name `profile(named:)` takes, as a user would write them.
    public static let nameSummary = "clean, A…H, random:PERCENT, bursty:PERCENT, jitter:MS, wifi"

    private static func number(_ text: String, in range: ClosedRange<Double>, name: String) throws(NetworkCatalogError) -> Double {
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw .outOfRange(name: name, allowed: range)
        }
        return value
    }

    private static func lossy(_ name: String, percent: Double, meanBurstPackets: Double) -> NetworkProfile {
        NetworkProfile(name: name, baseDelayMs: 20...20, loss: GilbertElliottLoss(lossRate: percent / 100, meanBurstPackets: meanBurstPackets),
                       jitter: ParetoJitter(meanMs: 1))
    }

    private static func formatted(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

/// A network name `NetworkCatalog.profile(named:)` cannot give.
public enum NetworkCatalogError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No network has this name.
    case unknownName(String)
    /// The name's number is not a finite number inside `allowed`.
    case outOfRange(name: String, allowed: ClosedRange<Double>)

    public var description: String {
        switch self {
        case let .unknownName(name):
            "no network is named \(name.debugDescription) (\(NetworkCatalog.nameSummary))"
        case let .outOfRange(name, allowed):
            "\(name.debugDescription): the number must be within \(NetworkCatalog.formattedRange(allowed))"
        }
    }
}

extension NetworkCatalog {
    static func formattedRange(_ range: ClosedRange<Double>) -> String { "\(formatted(range.lowerBound))–\(formatted(range.upperBound))" }
}
