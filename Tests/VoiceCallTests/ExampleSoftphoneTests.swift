// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Issue 24, "an Examples/ package built and run by the tests": `MinimalSoftphone` (built from
/// `Examples/Sources`, which imports only VoiceEngineKit) answers `voicecall call`'s offer and
/// the two talk over UDP on WAV files; then it answers a G.711-only offer.
///
/// Nested in `RealCallTests` so that it runs serially with the other real-time calls.
extension RealCallTests {
@Suite struct ExampleSoftphoneTests {
    static var softphone: URL { VoiceCallProcess.executable.deletingLastPathComponent().appendingPathComponent("MinimalSoftphone") }

    @Test(arguments: ["all", "pcmu"])
    func answersAnOfferAndTalksBothWays(codecs: String) throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (callerIn, callerSpeech) = try RealCallSupport.speech(seconds: 2, from: 1, in: directory, name: "caller.wav")
        let (softphoneIn, softphoneSpeech) = try RealCallSupport.speech(seconds: 2, from: 4, in: directory, name: "softphone.wav")
        let offer = directory.appendingPathComponent("offer.sdp").path
        let answer = directory.appendingPathComponent("answer.sdp").path
        let callerOut = directory.appendingPathComponent("heard-by-caller.wav")
        let softphoneOut = directory.appendingPathComponent("heard-by-softphone.wav")
        let codec = codecs == "all" ? [] : ["--codec", codecs]
        let caller = try BackgroundProcess(VoiceCallProcess.executable, ["call", "--listen", "127.0.0.1:0", "--input", callerIn.path,
                                                                         "--output", callerOut.path, "--offer-out", offer,
                                                                         "--answer-in", answer] + codec)
        while !FileManager.default.fileExists(atPath: offer) && caller.process.isRunning { usleep(20_000) }
        let softphone = try BackgroundProcess(Self.softphone, ["--offer", offer, "--answer-out", answer,
                                                               "--input", softphoneIn.path, "--output", softphoneOut.path])
        let softphoneEnd = softphone.wait(timeoutSeconds: 20)
        let callerEnd = caller.wait(timeoutSeconds: 20)
        #expect(softphoneEnd.status == 0, "\(softphoneEnd.standardError)")
        #expect(callerEnd.status == 0, "\(callerEnd.standardError)")
        let answerText = try String(contentsOfFile: answer, encoding: .utf8)
        #expect(answerText.contains(codecs == "all" ? "opus/48000/2" : "PCMU/8000"), "\(answerText)")
        let heardBySoftphone = try RealCallSupport.similarity(of: softphoneOut, to: callerSpeech)
        let heardByCaller = try RealCallSupport.similarity(of: callerOut, to: softphoneSpeech)
        print("MinimalSoftphone ⇄ voicecall call (\(codecs)): caller → softphone \(heardBySoftphone.correlation), "
              + "softphone → caller \(heardByCaller.correlation)")
        #expect(heardBySoftphone.correlation > RealCallSupport.sameSpeech)
        #expect(heardByCaller.correlation > RealCallSupport.sameSpeech)
    }

    @Test func aBadCommandLineSaysWhy() throws {
        let result = try BackgroundProcess(Self.softphone, ["--offer", "x.sdp"]).wait(timeoutSeconds: 10)
        #expect(result.status == 2)
        #expect(result.standardError.contains("--offer and --answer-out are needed"), "\(result.standardError)")
    }
}
}
