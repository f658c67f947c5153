// SPDX-License-Identifier: Apache-2.0
extension AudioSessionCenter {
    /// The process's registry, for code written against iOS's one system-wide session
    /// (`AudioSession.sharedInstance()`): routes from the system's ALSA device list; media
    /// services count as lost when an engine's device says its sound server is gone (no
    /// server is probed: a system may have none). Made on first use. Code that wants its own
    /// registry (tests, several independent engines) makes one.
    public static let shared = AudioSessionCenter(deviceLayer: .alsa())
}

extension AudioSession {
    private static let shared = AudioSession(name: "app", priority: .call, center: .shared)

    /// The app's own session in `AudioSessionCenter.shared` (AVAudioSession's
    /// `sharedInstance()`): the same object on every call, named "app", at call priority —
    /// a softphone's session is its calls' session, and a `CallProvider` made from its
    /// configuration alone activates this one for its calls (as CallKit activates the app's
    /// shared session), so a category set on it before or during a call is the call's.
    public static func sharedInstance() -> AudioSession { shared }
}
