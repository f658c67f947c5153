// SPDX-License-Identifier: Apache-2.0
/// What the app tells the system about a call (CXCallUpdate): who it is with and what the
/// call can do. The capabilities decide which actions a transaction may carry
/// (`invalidAction` otherwise) and whether answering another call holds or ends this one.
public struct CallUpdate: Sendable, Hashable {
    /// The other party, or nil when unknown.
    public var remoteHandle: CallHandle?
    /// The name to show for the other party.
    public var localizedCallerName: String?
    /// Whether the call can be put on hold (SetHeldCallAction).
    public var supportsHolding: Bool
    /// Whether the call can join a group (SetGroupCallAction with another call).
    public var supportsGrouping: Bool
    /// Whether the call can leave its group (SetGroupCallAction with nil).
    public var supportsUngrouping: Bool
    /// Whether the call takes key presses (PlayDTMFCallAction).
    public var supportsDTMF: Bool
    /// Whether the call has video.
    public var hasVideo: Bool

    /// An update with CXCallUpdate's defaults: every capability on, no video.
    public init(remoteHandle: CallHandle? = nil, localizedCallerName: String? = nil, supportsHolding: Bool = true,
                supportsGrouping: Bool = true, supportsUngrouping: Bool = true, supportsDTMF: Bool = true, hasVideo: Bool = false) {
        self.remoteHandle = remoteHandle
        self.localizedCallerName = localizedCallerName
        self.supportsHolding = supportsHolding
        self.supportsGrouping = supportsGrouping
        self.supportsUngrouping = supportsUngrouping
        self.supportsDTMF = supportsDTMF
        self.hasVideo = hasVideo
    }
}
