// SPDX-License-Identifier: Apache-2.0
import Glibc

/// One fuzz target: a name (the seed directory's and the command's) and a function that must
/// never trap, whatever bytes it gets, except through `check` when an invariant breaks.
struct FuzzTarget: Sendable {
    let name: String
    let run: @Sendable (UnsafeRawBufferPointer) -> Void
    /// A few small valid inputs, written to vectors/fuzz/<name>/ by `--seeds`.
    let seeds: @Sendable () throws -> [[UInt8]]

    static let all: [FuzzTarget] = [
        RTPPacketTarget.target,
        RTCPCompoundTarget.target,
        SRTPUnprotectTarget.target,
        SDESCryptoTarget.target,
        SDPTarget.target,
        PushPayloadTarget.target,
        TelephoneEventTarget.target,
        WAVTarget.target,
        TraceCSVTarget.target,
        JitterBufferTarget.target,
        CallMediaTarget.plain,
        CallMediaTarget.srtp,
        DTLSRecordTarget.target,
        STUNTarget.target,
        DirectoryStoreTarget.target,
        HistoryRowTarget.target,
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

    /// Set once by main before libFuzzer starts (one thread).
    nonisolated(unsafe) static var selected: FuzzTarget?
}

/// Stops the run with a message when an invariant breaks; libFuzzer saves the input.
@inline(never)
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
           file: StaticString = #fileID, line: UInt = #line) {
    if !condition() {
        printError("invariant broken at \(file):\(line): \(message())\n")
        abort()
    }
}

/// Reads the fuzzer's bytes as a program: numbers, choices and byte strings, 0 once exhausted.
struct FuzzInput {
    private let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }
    var remaining: Int { max(bytes.count - offset, 0) }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint16() -> UInt16 { UInt16(byte()) << 8 | UInt16(byte()) }
    mutating func uint32() -> UInt32 { UInt32(uint16()) << 16 | UInt32(uint16()) }

    /// A value in 0..<count.
    mutating func choice(_ count: Int) -> Int { count <= 1 ? 0 : Int(uint16()) % count }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    /// Up to `maximum` bytes, the length read first.
    mutating func bytes(maximum: Int) -> UnsafeRawBufferPointer {
        let length = min(Int(uint16()) % (maximum + 1), remaining)
        defer { offset += length }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
    }

    /// Everything left.
    mutating func rest() -> UnsafeRawBufferPointer {
        let start = min(offset, bytes.count)
        offset = bytes.count
        return UnsafeRawBufferPointer(rebasing: bytes[start...])
    }
}

/// Writes to standard error without buffering (the message must be out before abort).
func printError(_ message: String) {
    var message = message
    message.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
