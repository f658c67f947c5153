// SPDX-License-Identifier: Apache-2.0
import AudioSession
import Calls
import Locking
import Testing
@testable import voicecall

/// The demo's flow waits on its delegates' state (`isActive`) and then reads their log: each
/// line must be written before the state it tells of changes, or a flow that saw the change
/// first ends its log without the line (CI failed once so: one `didDeactivate` of two).
@Suite struct DemoPhoneDelegateTests {
    @Test func eachLineIsLoggedBeforeTheStateItTellsOfChanges() throws {
        let delegate = Locked<DemoPhoneDelegate?>(nil)
        let seen = Locked<[String]>([])
        let phone = DemoPhoneDelegate(name: "bob") { line in
            let active = delegate.withLock { $0 }?.isActive ?? false
            seen.withLock { $0.append("\(line.prefix(while: { $0 != " " })) \(line.contains("didActivate") ? "didActivate" : "didDeactivate") while active: \(active)") }
        }
        delegate.withLock { $0 = phone }
        let center = AudioSessionCenter()
        let provider = try CallProvider(configuration: ProviderConfiguration(), audio: CallAudioSystem(center: center))
        let session = AudioSession(name: "call", priority: .call, center: center)
        phone.provider(provider, didActivate: session)
        #expect(phone.isActive)
        phone.provider(provider, didDeactivate: session)
        #expect(!phone.isActive)
        #expect(seen.withLock { $0 } == ["bob: didActivate while active: false", "bob: didDeactivate while active: true"])
    }
}
