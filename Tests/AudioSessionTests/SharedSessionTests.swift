// SPDX-License-Identifier: Apache-2.0
import AudioSession
import Testing

/// iOS code reaches its session with `AVAudioSession.sharedInstance()` from anywhere (issue 23,
/// row 10): here `AudioSession.sharedInstance()`, one object per process in one shared center.
@Suite struct SharedSessionTests {
    @Test func theSharedInstanceIsOneSessionInTheSharedCenter() throws {
        let session = AudioSession.sharedInstance()
        #expect(session === AudioSession.sharedInstance())
        #expect(session.center === AudioSessionCenter.shared)
        #expect(session.name == "app" && session.priority == .call)
        // (Its configuration is set in one test only, ProviderFromConfigurationTests: the
        // tests share the process and run in parallel.)
    }
}
