// SPDX-License-Identifier: Apache-2.0
// Linux only, as the engine is: ESTRPIPE and EBADFD are Linux codes.
internal import Glibc

/// A POSIX error number (`errno`), positive as `errno.h` defines it.
///
/// Switch on the named constants rather than numbers: `case .brokenPipe:` for `EPIPE`. Names
/// follow swift-system's `Errno` where it has one; Linux's own codes that ALSA uses get names
/// after their Linux text (`.streamPipe` for `ESTRPIPE`, `.fileDescriptorInBadState` for
/// `EBADFD`), and `ENODEV` is `.noSuchDevice` (Linux's text; swift-system uses Darwin's).
///
/// ALSA and other C libraries return a negated errno; `init(negatedReturnValue:)` turns such a
/// return value into the positive code.
public struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    /// The positive error number.
    public let rawValue: Int32

    /// The error number `rawValue` (positive, as `errno` holds it).
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The error a C function reported by returning `-errno` (ALSA's convention), e.g. `-32`
    /// becomes `.brokenPipe`.
    public init(negatedReturnValue: some BinaryInteger) {
        let value = Int64(clamping: negatedReturnValue)
        self.init(rawValue: Int32(clamping: value == .min ? .max : -value))
    }

    /// The calling thread's `errno` now. Read it right after the failing call.
    public static var current: Errno { Errno(rawValue: errno) }

    /// The symbolic name of a code this type names, e.g. `"EPIPE"`; nil for others.
    public var name: String? { Self.name(of: rawValue) }

    /// The C library's text for the code (`strerror`), e.g. "Broken pipe".
    public var message: String { String(cString: strerror(rawValue)) }

    /// Text, symbolic name and number, e.g. "Broken pipe (EPIPE = 32)".
    public var description: String { "\(message) (\(name.map { "\($0) = " } ?? "errno ")\(rawValue))" }
}

extension Errno {
    /// `EPERM`: operation not permitted (e.g. SCHED_FIFO without the privilege).
    public static let notPermitted = Errno(rawValue: EPERM)
    /// `ENOENT`: no such file or directory (e.g. an ALSA PCM name that is not defined).
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// `EINTR`: the call was interrupted by a signal; retry it.
    public static let interrupted = Errno(rawValue: EINTR)
    /// `EIO`: input/output error.
    public static let ioError = Errno(rawValue: EIO)
    /// `EBADF`: not an open file descriptor.
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    /// `EAGAIN`: nothing to do now without blocking; try again later.
    public static let resourceTemporarilyUnavailable = Errno(rawValue: EAGAIN)
    /// `EWOULDBLOCK`, the same code as `EAGAIN` on Linux.
    public static let wouldBlock = Errno(rawValue: EWOULDBLOCK)
    /// `ENOMEM`: out of memory.
    public static let noMemory = Errno(rawValue: ENOMEM)
    /// `EBUSY`: device or resource busy (e.g. a PCM another process holds exclusively).
    public static let resourceBusy = Errno(rawValue: EBUSY)
    /// `ENODEV`: no such device (ALSA: the device was unplugged or its server is gone).
    public static let noSuchDevice = Errno(rawValue: ENODEV)
    /// `EINVAL`: invalid argument (ALSA: parameters the device cannot take).
    public static let invalidArgument = Errno(rawValue: EINVAL)
    /// `EPIPE`: broken pipe (ALSA: an xrun, playback underrun or capture overrun).
    public static let brokenPipe = Errno(rawValue: EPIPE)
    /// `EBADFD`: file descriptor in bad state (ALSA: the PCM is not in a state for the call).
    public static let fileDescriptorInBadState = Errno(rawValue: EBADFD)
    /// `ESTRPIPE`: streams pipe error (ALSA: the PCM is suspended; resume it).
    public static let streamPipe = Errno(rawValue: ESTRPIPE)
    /// `EDESTADDRREQ`: a send without a destination address.
    public static let addressRequired = Errno(rawValue: EDESTADDRREQ)
    /// `EMSGSIZE`: message too long (a datagram larger than the buffer or the path allows).
    public static let messageTooLong = Errno(rawValue: EMSGSIZE)
    /// `EAFNOSUPPORT`: address family not supported (e.g. IPv6 on a host without it).
    public static let addressFamilyNotSupported = Errno(rawValue: EAFNOSUPPORT)
    /// `EADDRINUSE`: the address and port are already bound.
    public static let addressInUse = Errno(rawValue: EADDRINUSE)
    /// `EADDRNOTAVAIL`: the address is not one of this host's.
    public static let addressNotAvailable = Errno(rawValue: EADDRNOTAVAIL)
    /// `ENOBUFS`: no buffer space available (a full socket send queue).
    public static let noBufferSpace = Errno(rawValue: ENOBUFS)
    /// `ECONNREFUSED`: connection refused (UDP: an ICMP port unreachable for an earlier send).
    public static let connectionRefused = Errno(rawValue: ECONNREFUSED)
    /// `EHOSTUNREACH`: no route to host (UDP: an ICMP host unreachable for an earlier send).
    public static let hostUnreachable = Errno(rawValue: EHOSTUNREACH)
    /// `ENETUNREACH`: network unreachable (UDP: an ICMP network unreachable for an earlier
    /// send, or no route from this host).
    public static let networkUnreachable = Errno(rawValue: ENETUNREACH)

    /// Whether a UDP socket's call failed with an ICMP error for an earlier datagram (port,
    /// host or network unreachable): what the network said about a send, not a broken socket.
    public var isUnreachableReport: Bool {
        self == .connectionRefused || self == .hostUnreachable || self == .networkUnreachable
    }

    /// Symbolic names of the codes named above (`EWOULDBLOCK` is `EAGAIN` on Linux).
    private static func name(of code: Int32) -> String? {
        switch code {
        case EPERM: "EPERM"
        case ENOENT: "ENOENT"
        case EINTR: "EINTR"
        case EIO: "EIO"
        case EBADF: "EBADF"
        case EAGAIN: "EAGAIN"
        case ENOMEM: "ENOMEM"
        case EBUSY: "EBUSY"
        case ENODEV: "ENODEV"
        case EINVAL: "EINVAL"
        case EPIPE: "EPIPE"
        case EBADFD: "EBADFD"
        case ESTRPIPE: "ESTRPIPE"
        case EDESTADDRREQ: "EDESTADDRREQ"
        case EMSGSIZE: "EMSGSIZE"
        case EAFNOSUPPORT: "EAFNOSUPPORT"
        case EADDRINUSE: "EADDRINUSE"
        case EADDRNOTAVAIL: "EADDRNOTAVAIL"
        case ENOBUFS: "ENOBUFS"
        case ECONNREFUSED: "ECONNREFUSED"
        case EHOSTUNREACH: "EHOSTUNREACH"
        case ENETUNREACH: "ENETUNREACH"
        default: nil
        }
    }
}
