import Foundation

/// Interleaved 16-bit PCM audio read from or written to a WAV file (RIFF/WAVE).
///
/// Reading accepts PCM 16-bit and IEEE float 32-bit (converted to 16-bit with clipping),
/// skips unknown chunks, and tolerates a data chunk whose declared size overruns the file
/// (common in files written by streaming recorders) by reading what is there.
public struct WAVAudio: Sendable, Equatable {
    /// Frames per second.
    public var sampleRate: Int
    /// Interleaved channels per frame.
    public var channelCount: Int
    /// Interleaved samples, `frameCount * channelCount` of them.
    public var samples: [Int16]

    /// Frames (samples per channel).
    public var frameCount: Int { channelCount == 0 ? 0 : samples.count / channelCount }

    /// Duration in seconds.
    public var durationSeconds: Double { sampleRate == 0 ? 0 : Double(frameCount) / Double(sampleRate) }

    /// Audio from interleaved samples.
    public init(sampleRate: Int, channelCount: Int, samples: [Int16]) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.samples = samples
    }

    /// Reads a WAV file.
    public init(contentsOf url: URL) throws(WAVError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .io(path: url.path, reason: error.localizedDescription)
        }
        try self.init(wavData: data)
    }

    /// Parses the bytes of a WAV file.
    public init(wavData data: Data) throws(WAVError) {
        let bytes = [UInt8](data)
        guard bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x41, 0x56, 0x45] else {
            throw .malformed("no RIFF/WAVE header")
        }
        var offset = 12
        var format: (tag: UInt16, channels: Int, rate: Int, bits: Int)? = nil
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let declared = Int(Self.readUInt32(bytes, offset + 4))
            let bodyStart = offset + 8
            switch id {
            case "fmt ":
                guard declared >= 16, bodyStart + 16 <= bytes.count else { throw .malformed("fmt chunk shorter than 16 bytes") }
                var tag = Self.readUInt16(bytes, bodyStart)
                let bits = Int(Self.readUInt16(bytes, bodyStart + 14))
                if tag == 0xFFFE, declared >= 40, bodyStart + 26 <= bytes.count {
                    tag = Self.readUInt16(bytes, bodyStart + 24)  // WAVE_FORMAT_EXTENSIBLE sub-format
                }
                format = (tag, Int(Self.readUInt16(bytes, bodyStart + 2)), Int(Self.readUInt32(bytes, bodyStart + 4)), bits)
            case "data":
                guard let format else { throw .malformed("data chunk before fmt chunk") }
                let available = min(declared, bytes.count - bodyStart)
                try self.init(format: format, body: bytes[bodyStart..<bodyStart + available])
                return
            default:
                break
            }
            guard declared <= bytes.count - bodyStart else { throw .malformed("chunk '\(id)' runs past the end") }
            offset = bodyStart + declared + (declared & 1)
        }
        throw .malformed("no data chunk")
    }

    private init(format: (tag: UInt16, channels: Int, rate: Int, bits: Int), body: ArraySlice<UInt8>) throws(WAVError) {
        guard (1...8).contains(format.channels) else { throw .unsupportedFormat("\(format.channels) channels") }
        guard (1...768_000).contains(format.rate) else { throw .unsupportedFormat("sample rate \(format.rate)") }
        let base = body.startIndex
        switch (format.tag, format.bits) {
        case (1, 16):
            let count = body.count / 2
            samples = (0..<count).map { Int16(bitPattern: Self.readUInt16(body, base + 2 * $0)) }
        case (3, 32):
            let count = body.count / 4
            samples = (0..<count).map {
                let value = Float(bitPattern: Self.readUInt32(body, base + 4 * $0))
                return Int16(clamping: Int((max(-1, min(1, value.isNaN ? 0 : value)) * 32767).rounded()))
            }
        default:
            throw .unsupportedFormat("format tag \(format.tag), \(format.bits) bits per sample")
        }
        sampleRate = format.rate
        channelCount = format.channels
        samples.removeLast(samples.count % format.channels)
    }

    /// The file's bytes: a canonical 44-byte header and 16-bit PCM data.
    public func wavData() -> Data {
        var out = [UInt8]()
        let dataBytes = samples.count * 2
        out.reserveCapacity(44 + dataBytes)
        func put32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        func put16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        out.append(contentsOf: Array("RIFF".utf8)); put32(UInt32(36 + dataBytes))
        out.append(contentsOf: Array("WAVEfmt ".utf8)); put32(16)
        put16(1); put16(UInt16(channelCount)); put32(UInt32(sampleRate))
        put32(UInt32(sampleRate * channelCount * 2)); put16(UInt16(channelCount * 2)); put16(16)
        out.append(contentsOf: Array("data".utf8)); put32(UInt32(dataBytes))
        for sample in samples { put16(UInt16(bitPattern: sample)) }
        return Data(out)
    }

    /// Writes the audio as a 16-bit PCM WAV file, replacing any file at `url`.
    public func write(to url: URL) throws(WAVError) {
        do {
            try wavData().write(to: url, options: .atomic)
        } catch {
            throw .io(path: url.path, reason: error.localizedDescription)
        }
    }

    private static func readUInt16<C: RandomAccessCollection>(_ bytes: C, _ at: C.Index) -> UInt16 where C.Element == UInt8, C.Index == Int {
        UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    private static func readUInt32<C: RandomAccessCollection>(_ bytes: C, _ at: C.Index) -> UInt32 where C.Element == UInt8, C.Index == Int {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
}
