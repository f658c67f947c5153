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
        // As an app configures it at launch; what it set is what the next caller reads.
        try AudioSession.sharedInstance().setCategory(.playAndRecord, mode: .voiceChat, options: [.allowBluetoothHFP])
        #expect(AudioSession.sharedInstance().category == .playAndRecord)
        #expect(AudioSession.sharedInstance().mode == .voiceChat)
        #expect(AudioSession.sharedInstance().categoryOptions.contains(.allowBluetoothHFP))
        #expect(!session.isActive)
    }
}
