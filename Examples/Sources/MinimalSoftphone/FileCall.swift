// SPDX-License-Identifier: Apache-2.0
import Foundation
import VoiceEngineKit

/// A call on WAV files instead of a sound card: the program drives the call's media itself,
/// the way an app with its own audio callback would. Every frame (20 ms by default) it reads
/// the microphone's frame from the input file, hands it to `CallMedia.send(microphone:)`, sends
/// what the call queued, plays the call's next frame into the output file, and between frames
/// gives the call every datagram that arrived. `VoiceEngine` does the same on its audio and
/// network threads.
final class FileCall {
    /// The input is not a file the call can send.
    struct InputError: Error, CustomStringConvertible {
        var description: String
    }

    let media: CallMedia
    let socket: UDPSocket
    /// How long the call goes on once the input has been sent, for the caller's last words.
    var tailSeconds = 1.0

    init(media: CallMedia, socket: UDPSocket) {
        self.media = media
        self.socket = socket
    }

    /// Sends `input` in real time and records to `output`; returns the seconds recorded.
    func run(input: String, output: String) throws -> Double {
        let reader = try WAVFileReader(path: input)
        let rate = media.configuration.sampleRate
        guard reader.sampleRate == rate, reader.channelCount == 1 else {
            throw InputError(description: "\(input) is \(reader.sampleRate) Hz, \(reader.channelCount) channels: the call takes \(rate) Hz mono")
        }
        let writer = try WAVFileWriter(path: output, sampleRate: rate, channelCount: 1)
        let samplesPerFrame = media.samplesPerFrame
        let frameMs = Double(media.configuration.frameDurationMs)
        var microphone = [Int16](repeating: 0, count: samplesPerFrame)
        var speaker = [Int16](repeating: 0, count: samplesPerFrame)
        var datagram = [UInt8](repeating: 0, count: 2_048)
        let start = MonotonicClock.milliseconds
        var frames = 0
        var inputEndedAtMs: Double?
        while true {
            let now = MonotonicClock.milliseconds - start
            if now >= Double(frames) * frameMs {
                let read = try microphone.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
                if read < samplesPerFrame {
                    for index in read..<samplesPerFrame { microphone[index] = 0 }
                    if inputEndedAtMs == nil { inputEndedAtMs = now }
                }
                microphone.withUnsafeBufferPointer { media.send(microphone: $0) }
                media.sendDatagrams(nowMs: now) { _ = try? socket.send($0) }
                _ = speaker.withUnsafeMutableBufferPointer { media.render(into: $0, nowMs: now) }
                try speaker.withUnsafeBufferPointer { try writer.write($0) }
                frames += 1
            }
            // Everything that arrived, into the call (it authenticates, reorders and decodes).
            while let received = try datagram.withUnsafeMutableBytes({ try socket.receive(into: $0) }) {
                guard received.length <= datagram.count else { continue }  // larger than any call sends: dropped
                _ = datagram.withUnsafeMutableBytes {
                    media.receiveDatagram(UnsafeMutableRawBufferPointer(rebasing: $0[0..<received.length]), arrivalTimeMs: now)
                }
            }
            if let ended = inputEndedAtMs, now - ended >= tailSeconds * 1_000 { break }
            let untilNextFrame = Double(frames) * frameMs - (MonotonicClock.milliseconds - start)
            if untilNextFrame > 0 { _ = try socket.waitForData(timeoutMs: Int(untilNextFrame.rounded(.up))) }
        }
        try writer.close()
        return Double(writer.frameCount) / Double(rate)
    }
}
