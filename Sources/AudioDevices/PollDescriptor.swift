// SPDX-License-Identifier: Apache-2.0
/// One descriptor to wait on, laid out as C's `struct pollfd` (`int fd; short events;
/// short revents;`), so `SystemALSA` hands a buffer of them to libasound and `poll(2)` as is.
/// A test checks the layout matches.
public struct PollDescriptor: Hashable, Sendable {
    /// The file descriptor (-1: none; `poll` skips it).
    public var fileDescriptor: Int32
    /// What to wait for.
    public var events: PollEvents
    /// What happened, filled in by `poll`.
    public var returnedEvents: PollEvents

    /// A descriptor waiting for `events` on `fileDescriptor`.
    public init(fileDescriptor: Int32 = -1, events: PollEvents = [], returnedEvents: PollEvents = []) {
        self.fileDescriptor = fileDescriptor
        self.events = events
        self.returnedEvents = returnedEvents
    }
}
