// SPDX-License-Identifier: Apache-2.0
import Glibc
import SystemErrors
import Testing

/// `Errno`: the named constants are the C library's codes, ALSA's negated returns map onto
/// them, and the text names both the reason and the code.
@Suite struct ErrnoTests {
    @Test func namedConstantsAreTheCLibrarysCodes() {
        #expect(Errno.brokenPipe.rawValue == EPIPE)
        #expect(Errno.streamPipe.rawValue == ESTRPIPE)
        #expect(Errno.noSuchDevice.rawValue == ENODEV)
        #expect(Errno.resourceTemporarilyUnavailable == .wouldBlock)
        #expect(Errno.connectionRefused.rawValue == ECONNREFUSED)
    }

    @Test func negatedReturnValuesBecomePositiveCodes() {
        #expect(Errno(negatedReturnValue: -32) == .brokenPipe)
        #expect(Errno(negatedReturnValue: -Int(ESTRPIPE)) == .streamPipe)
        #expect(Errno(negatedReturnValue: Int64.min).rawValue == Int32.max)  // clamped, no trap
    }

    @Test func descriptionGivesTextNameAndNumber() {
        #expect(Errno.brokenPipe.name == "EPIPE")
        #expect(Errno.brokenPipe.message == "Broken pipe")
        #expect(Errno.brokenPipe.description == "Broken pipe (EPIPE = 32)")
        #expect(Errno(rawValue: 4_242).name == nil)
        #expect(Errno(rawValue: 4_242).description == "Unknown error 4242 (errno 4242)")
    }

    @Test func currentReadsErrno() {
        #expect(close(-1) == -1)
        #expect(Errno.current == .badFileDescriptor)
    }

    @Test func switchesOnNames() {
        let kind: String = switch Errno(negatedReturnValue: -EPIPE) {
        case .brokenPipe: "xrun"
        case .streamPipe: "suspend"
        default: "other"
        }
        #expect(kind == "xrun")
    }
}
