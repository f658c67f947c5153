// SPDX-License-Identifier: Apache-2.0
// A minimal softphone: answers the SDP offer a SIP stack received, writes the answer for it,
// and runs the call — on a sound card (`VoiceEngine`), or on WAV files (`CallMedia` driven by
// this program's own loop, `FileCall`). One import: VoiceEngineKit.
import Foundation
import VoiceEngineKit

let usage = """
    usage: MinimalSoftphone --offer OFFER.sdp --answer-out ANSWER.sdp [--address IP]
                            (--device NAME [--seconds N] | --input IN.wav --output OUT.wav)
      Answers OFFER.sdp (its codec, SRTP key and address), writes our answer to ANSWER.sdp and
      runs the call: on the ALSA device NAME ("default") for N seconds (default 10), or sending
      IN.wav (48 kHz mono) and recording what the caller sends to OUT.wav.
    """

do {
    let options = try SoftphoneOptions(CommandLine.arguments.dropFirst())
    let offer = try SessionDescription(parsing: try String(contentsOfFile: options.offer, encoding: .utf8))
    // Where the caller will send: a UDP port of our own, written into the answer.
    let socket = try UDPSocket(bindingTo: UDPEndpoint(host: options.address, port: 0))
    let local = LocalAudio(address: options.address, port: socket.localEndpoint.port)
    let (answer, negotiated) = try offer.answer(from: local) { .random(profile: $0) }
    try answer.formatted.write(toFile: options.answerOut, atomically: true, encoding: .utf8)
    FileHandle.standardError.write(Data("MinimalSoftphone: answered, \(negotiated)\n".utf8))
    // What offer/answer settled becomes the call's media in one step; the caller is its peer.
    let media = try negotiated.makeCallMedia()
    try socket.setRemote(UDPEndpoint(host: negotiated.remoteAddress, port: negotiated.remotePort))
    switch options.audio {
    case let .device(name, seconds):
        var configuration = VoiceEngineConfiguration()
        configuration.device = .alsa(name)
        let engine = try VoiceEngine(configuration: configuration)
        _ = try engine.addCall(media, transport: CallTransport(rtp: socket))
        try engine.start()
        Thread.sleep(forTimeInterval: seconds)
        engine.shutdown()
    case let .files(input, output):
        let heard = try FileCall(media: media, socket: socket).run(input: input, output: output)
        FileHandle.standardError.write(Data(String(format: "MinimalSoftphone: recorded %.1f s\n", heard).utf8))
    }
} catch let error as SoftphoneOptions.UsageError {
    FileHandle.standardError.write(Data("MinimalSoftphone: \(error.message)\n\(usage)\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("MinimalSoftphone: \(error)\n".utf8))
    exit(1)
}
