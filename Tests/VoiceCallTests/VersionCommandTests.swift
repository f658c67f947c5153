// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Testing

/// `voicecall --version` says which VoiceEngine it was built from.
@Suite struct VersionCommandTests {
    @Test func theVersionIsThePackages() throws {
        let run = try DemoCommandTests.run(["--version"])
        #expect(run.exited && run.status == 0, "\(run.errors)")
        #expect(run.output == "voicecall (VoiceEngine) \(VoiceEngineVersion.string)\n")
    }
}
