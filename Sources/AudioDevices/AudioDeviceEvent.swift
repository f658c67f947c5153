// SPDX-License-Identifier: Apache-2.0
/// Something that happened to a running stream, reported on `ALSAStream.events` and to its
/// event handler. Posted from the I/O thread on fault paths only, never per period.
public enum AudioDeviceEvent: Sendable, Equatable, CustomStringConvertible {
    /// An underrun (playback) or overrun (capture), `EPIPE`; `count` is the total so far.
    case xrun(AudioDirection, count: Int)
    /// The device was suspended (`ESTRPIPE`) and is being resumed.
    case suspended(AudioDirection)
    /// Audio flows again after an xrun or suspend; `nanoseconds` from the fault to the first
    /// successful transfer.
    case recovered(AudioDirection, nanoseconds: Int64)
    /// A duplex stream restarted capture and playback together (dropped, prepared, playback
    /// prefilled, both started back to back, as at start) after an xrun or suspend of `cause`,
    /// so the two directions stay in phase rather than one restarting a period or more apart
    /// from the other. Follows `.xrun` or `.suspended`; the captured audio already in the ring
    /// stays there. Audio was lost in both directions: an echo canceller re-aligns here (on the
    /// I/O thread, by comparing `ALSAStream.restartCount` instead of reading events).
    case restarted(cause: AudioDirection)
    /// Recovery failed repeatedly, so the PCM was closed and opened again.
    case reopened(AudioDirection)
    /// The device is gone (`ENODEV`, `POLLERR`/`POLLHUP`, or reopening failed); this
    /// direction stops. The stream's thread ends when every direction is lost.
    case deviceLost(AudioDirection, AudioDeviceError)

    public var description: String {
        switch self {
        case let .xrun(direction, count): return "\(direction) xrun (total \(count))"
        case let .suspended(direction): return "\(direction) suspended"
        case let .recovered(direction, nanoseconds): return "\(direction) recovered in \(Double(nanoseconds) / 1e6) ms"
        case let .restarted(cause): return "capture and playback restarted together after a \(cause) fault"
        case let .reopened(direction): return "\(direction) reopened"
        case let .deviceLost(direction, error): return "\(direction) device lost: \(error)"
        }
    }
}
