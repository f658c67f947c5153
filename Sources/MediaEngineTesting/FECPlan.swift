// SPDX-License-Identifier: Apache-2.0
import MediaEngine

/// How a call plans Opus in-band FEC: the engine's closed loop against the static plans other
/// stacks ship, for judging what each costs and saves on a network.
public enum FECPlan: String, CaseIterable, Sendable {
    /// The engine's defaults: no FEC until the far end's RTCP reports loss (or jitter beyond a
    /// packet interval), then FEC for what it reports (`MediaConfiguration.adaptsToLoss`).
    case adaptive
    /// FEC planned for 10 % loss on every call, whatever the network (pjmedia's and
    /// baresip's way: a value fixed in the configuration).
    case staticTenPercent
    /// No FEC at all.
    case none

    /// A short name for tables.
    public var label: String {
        switch self {
        case .adaptive: return "adaptive"
        case .staticTenPercent: return "static FEC 10 %"
        case .none: return "no FEC"
        }
    }

    /// `base` with this plan applied (everything else, bitrate and complexity included, as given).
    public func configuration(_ base: MediaConfiguration = MediaConfiguration()) -> MediaConfiguration {
        var configuration = base
        switch self {
        case .adaptive:
            configuration.adaptsToLoss = true
        case .staticTenPercent:
            configuration.adaptsToLoss = false
            configuration.inbandFEC = true
            configuration.expectedPacketLossPercent = 10
        case .none:
            configuration.adaptsToLoss = false
            configuration.expectedPacketLossPercent = 0
        }
        return configuration
    }
}
