// SPDX-License-Identifier: Apache-2.0
internal import Glibc

/// `poll(2)` event bits, as a PCM's descriptors ask for them and report them.
///
/// The raw value is `struct pollfd`'s `short`, so a buffer of `PollDescriptor`s is what
/// `poll` and libasound read and write.
public struct PollEvents: OptionSet, Hashable, Sendable {
    /// The `poll.h` bits.
    public let rawValue: Int16

    /// Events from `poll.h` bits.
    public init(rawValue: Int16) { self.rawValue = rawValue }

    /// `POLLIN`: data to read (a capture period is ready).
    public static let input = PollEvents(rawValue: Int16(POLLIN))
    /// `POLLOUT`: room to write (a playback period can be written).
    public static let output = PollEvents(rawValue: Int16(POLLOUT))
    /// `POLLERR`: an error condition (ALSA: xrun, suspend, or a device gone).
    public static let error = PollEvents(rawValue: Int16(POLLERR))
    /// `POLLHUP`: the other end hung up (ALSA: the device is gone).
    public static let hangUp = PollEvents(rawValue: Int16(POLLHUP))
    /// `POLLNVAL`: the descriptor is not open.
    public static let invalid = PollEvents(rawValue: Int16(POLLNVAL))
}
