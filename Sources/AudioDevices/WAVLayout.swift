// SPDX-License-Identifier: Apache-2.0
/// Where a WAV file's samples are and how they are encoded: what `WAVAudio` (all in memory)
/// and `WAVFileReader` (chunk by chunk) both parse, through a function that reads bytes at an
/// offset, so neither needs the other's storage.
///
/// Accepts RIFF and RF64 (EBU Tech 3306: the `ds64` chunk's 64-bit data size stands for a
/// data chunk whose 32-bit size is 0xFFFFFFFF); skips unknown chunks; a data chunk that
/// claims more than the file holds is taken as what is there (streaming recorders that
/// stopped before patching the size write such files).
struct WAVLayout: Equatable {
    /// The encodings the readers decode.
    enum Encoding: Equatable {
        /// 16-bit signed integer PCM.
        case pcm16
        /// 32-bit IEEE float, clipped to ±1 and scaled to 16 bits.
        case float32

        /// Bytes per sample.
        var bytesPerSample: Int { self == .pcm16 ? 2 : 4 }
    }

    var encoding: Encoding
    var sampleRate: Int
    var channelCount: Int
    /// Offset of the first sample byte.
    var dataOffset: Int
    /// Bytes of sample data present: the declared size, cut to what the file holds.
    var dataByteCount: Int

    /// Whole frames present.
    var frameCount: Int { dataByteCount / (encoding.bytesPerSample * channelCount) }

    /// Parses the chunk structure of a file `length` bytes long; `read(offset, count)` returns
    /// `count` bytes at `offset` (the caller guarantees `offset + count <= length`).
    static func parse(length: Int, read: (Int, Int) throws(WAVError) -> [UInt8]) throws(WAVError) -> WAVLayout {
        guard length >= 12 else { throw .malformed("no RIFF/WAVE header") }
        let start = try read(0, 12)
        let form = String(decoding: start[0..<4], as: UTF8.self)
        guard form == "RIFF" || form == "RF64" || form == "BW64", start[8..<12] == [0x57, 0x41, 0x56, 0x45] else {
            throw .malformed("no RIFF/WAVE header")
        }
        // RF64: the data chunk's real size, from ds64 (which must come first).
        var rf64DataSize: UInt64?
        var offset = 12
        var format: (tag: UInt16, channels: Int, rate: Int, bits: Int)?
        while length - offset >= 8 {
            let header = try read(offset, 8)
            let id = String(decoding: header[0..<4], as: UTF8.self)
            let declared32 = readUInt32(header, 4)
            var declared = Int(declared32)
            let bodyStart = offset + 8
            let available = length - bodyStart
            switch id {
            case "ds64" where form != "RIFF" && offset == 12:
                guard declared >= 28, available >= 28 else { throw .malformed("ds64 chunk shorter than 28 bytes") }
                rf64DataSize = readUInt64(try read(bodyStart + 8, 8), 0)
            case "fmt ":
                guard declared >= 16, available >= 16 else { throw .malformed("fmt chunk shorter than 16 bytes") }
                let body = try read(bodyStart, min(declared, available, 26))
                var tag = readUInt16(body, 0)
                let bits = Int(readUInt16(body, 14))
                if tag == 0xFFFE, declared >= 40, body.count >= 26 {
                    tag = readUInt16(body, 24)  // WAVE_FORMAT_EXTENSIBLE sub-format
                }
                format = (tag, Int(readUInt16(body, 2)), Int(readUInt32(body, 4)), bits)
            case "data":
                guard let format else { throw .malformed("data chunk before fmt chunk") }
                if declared32 == .max, let rf64DataSize {
                    declared = Int(clamping: rf64DataSize)
                }
                return try WAVLayout(format: format, dataOffset: bodyStart, dataByteCount: min(declared, available))
            default:
                break
            }
            guard declared <= available else { throw .malformed("chunk '\(id)' runs past the end") }
            offset = bodyStart + declared + (declared & 1)
        }
        throw .malformed("no data chunk")
    }

    private init(format: (tag: UInt16, channels: Int, rate: Int, bits: Int), dataOffset: Int, dataByteCount: Int) throws(WAVError) {
        guard (1...8).contains(format.channels) else { throw .unsupportedFormat("\(format.channels) channels") }
        guard (1...768_000).contains(format.rate) else { throw .unsupportedFormat("sample rate \(format.rate)") }
        switch (format.tag, format.bits) {
        case (1, 16): encoding = .pcm16
        case (3, 32): encoding = .float32
        default: throw .unsupportedFormat("format tag \(format.tag), \(format.bits) bits per sample")
        }
        sampleRate = format.rate
        channelCount = format.channels
        self.dataOffset = dataOffset
        self.dataByteCount = dataByteCount
    }

    /// Decodes `bytes` (whole samples of this layout's encoding) into `output`, which holds
    /// at least `bytes.count / encoding.bytesPerSample` samples; returns how many it wrote.
    func decode(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        let count = min(bytes.count / encoding.bytesPerSample, output.count)
        switch encoding {
        case .pcm16:
            for index in 0..<count {
                output[index] = Int16(bitPattern: UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 2 * index, as: UInt16.self)))
            }
        case .float32:
            for index in 0..<count {
                let value = Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self)))
                output[index] = Int16(clamping: Int((max(-1, min(1, value.isNaN ? 0 : value)) * 32767).rounded()))
            }
        }
        return count
    }

    private static func readUInt16(_ bytes: [UInt8], _ at: Int) -> UInt16 {
        UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    private static func readUInt32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }

    private static func readUInt64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        UInt64(readUInt32(bytes, at)) | UInt64(readUInt32(bytes, at + 4)) << 32
    }
}
