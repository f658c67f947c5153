// SPDX-License-Identifier: Apache-2.0
import AudioSession
import Calls
import Foundation
import Locking

/// A delegate that fulfils every action at once on its own queue and remembers them.
final class FulfillingDelegate: ProviderDelegate {
    let queue = DispatchQueue(label: "FulfillingDelegate")
    private let performed = Locked<[CallAction]>([])
    var actions: [CallAction] { performed.withLock { $0 } }
    func settle() { for _ in 0..<8 { queue.sync {} } }
    private func take(_ action: CallAction) {
        performed.withLock { $0.append(action) }
        try? action.fulfill()
    }
    func providerDidBegin(_ provider: CallProvider) {}
    func providerDidReset(_ provider: CallProvider) {}
    func provider(_ provider: CallProvider, perform action: StartCallAction) { take(action) }
    func provider(_ provider: CallProvider, perform action: AnswerCallAction) { take(action) }
    func provider(_ provider: CallProvider, perform action: EndCallAction) { take(action) }
    func provider(_ provider: CallProvider, perform action: SetHeldCallAction) { take(action) }
    func provider(_ provider: CallProvider, perform action: SetMutedCallAction) { take(action) }
    func provider(_ provider: CallProvider, perform action: SetGroupCallAction) { take(action) }
    func provider(_ provider: CallProvider, perform action: PlayDTMFCallAction) { take(action) }
    func provider(_ provider: CallProvider, perform action: SetTranslatingCallAction) { take(action) }
    func provider(_ provider: CallProvider, timedOutPerforming action: CallAction) {}
    func provider(_ provider: CallProvider, didActivate audioSession: AudioSession) {}
    func provider(_ provider: CallProvider, didDeactivate audioSession: AudioSession) {}
}

/// A wall clock the test moves: every read is one second after the one before.
final class SteppingClock: Sendable {
    private let seconds = Locked<Double>(800_000_000)
    func now() -> Date { seconds.withLock { $0 += 1; return Date(timeIntervalSinceReferenceDate: $0) } }
}

/// A fresh database path of the test's own.
func temporaryDatabase(_ name: String) -> String {
    let directory = NSTemporaryDirectory() + "voiceengine-history-\(getpid())-\(name)-\(UUID().uuidString.prefix(8))"
    try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory + "/history.sqlite"
}
