// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Standard input, output and error as the process found them.
///
/// A program started with one of them closed (`voicecall call <&-`) would hand that number
/// to the next descriptor it opens — the UDP socket — and then read its SDP answer from any
/// datagram, or write its key to the network. So the first thing `voicecall` does is put
/// `/dev/null` on every closed one, and remember which: SDP is never read from or written to
/// a stream that was closed (`SDPExchange` refuses with a `.file` error, exit 7).
enum StandardStreams {
    /// The standard descriptors (0, 1, 2) that were closed when the process started; each now
    /// holds `/dev/null`. Evaluated once, by `VoiceCall.main` before anything else opens a
    /// descriptor.
    static let closedAtStart: Set<Int32> = reopenClosedOnes()

    private static func reopenClosedOnes() -> Set<Int32> {
        var closed: Set<Int32> = []
        for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            // open() takes the lowest free number: this one, since the lower ones are open by now.
            let opened = open("/dev/null", (descriptor == 0 ? O_RDONLY : O_WRONLY) | O_NOCTTY)
            if opened != descriptor {
                guard opened >= 0, dup2(opened, descriptor) == descriptor else {
                    // No /dev/null (a bare chroot): refuse rather than run with the hole.
                    _exit(7)
                }
                close(opened)
            }
            closed.insert(descriptor)
        }
        return closed
    }
}
