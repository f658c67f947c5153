// SPDX-License-Identifier: Apache-2.0
import CallDirectory
import Dispatch
import Foundation
import Locking
import Testing

/// iOS code reloads its directory with `CXCallDirectoryManager.sharedInstance.reloadExtension(
/// withIdentifier:completionHandler:)` (issue 23, row 10): the same calls work here on a
/// registry of the process's extensions.
@Suite struct CallDirectoryExtensionsTests {
    /// What a completion handler was called with, waited for (bounded).
    final class Outcome<Value: Sendable>: Sendable {
        private let value = Locked<Value?>(nil)
        private let done = DispatchSemaphore(value: 0)
        func set(_ newValue: Value) {
            value.withLock { $0 = newValue }
            done.signal()
        }
        func wait() -> Value? {
            _ = done.wait(timeout: .now() + 60)
            return value.withLock { $0 }
        }
    }

    static let identifier = "org.example.phone.spam"

    @Test func theIOSReloadPatternWorks() throws {
        let extensions = CallDirectoryExtensions(storeDirectory: temporaryDirectory("extensions") + "/nested/stores")
        try extensions.register(ClosureProvider { context in
            context.addBlockingEntry(withNextSequentialPhoneNumber: 1_800_555_1234)
            context.addIdentificationEntry(withNextSequentialPhoneNumber: 1_800_555_9999, label: "Pharmacy")
            context.completeRequest()
        }, withIdentifier: Self.identifier)

        let reloaded = Outcome<CallDirectoryError?>()
        extensions.reloadExtension(withIdentifier: Self.identifier) { error in reloaded.set(error) }
        #expect(reloaded.wait() == .some(nil), "reloaded without error")
        let manager = try #require(extensions.manager(forExtensionWithIdentifier: Self.identifier))
        #expect(manager.isBlocked(1_800_555_1234) && manager.label(for: 1_800_555_9999) == "Pharmacy")
        #expect(FileManager.default.fileExists(atPath: extensions.storeDirectory + "/\(Self.identifier).store"))

        let status = Outcome<(CallDirectoryManager.EnabledStatus, CallDirectoryError?)>()
        extensions.getEnabledStatusForExtension(withIdentifier: Self.identifier) { status.set(($0, $1)) }
        let enabled = status.wait()
        #expect(enabled?.0 == .enabled && enabled?.1 == nil)
    }

    @Test func anUnknownOrUnusableIdentifierIsATypedError() throws {
        let extensions = CallDirectoryExtensions(storeDirectory: temporaryDirectory("unknown"))
        let reloaded = Outcome<CallDirectoryError?>()
        extensions.reloadExtension(withIdentifier: "org.example.none") { reloaded.set($0) }
        #expect(reloaded.wait() == .some(.noExtensionFound(identifier: "org.example.none")))
        #expect(CallDirectoryError.noExtensionFound(identifier: "x").code == .noExtensionFound)
        let status = Outcome<(CallDirectoryManager.EnabledStatus, CallDirectoryError?)>()
        extensions.getEnabledStatusForExtension(withIdentifier: "org.example.none") { status.set(($0, $1)) }
        #expect(status.wait()?.0 == .unknown)
        for bad in ["", "../escape", ".hidden", "a/b", "spaces here", String(repeating: "a", count: 201)] {
            #expect(throws: CallDirectoryError.invalidExtensionIdentifier(bad)) {
                try extensions.register(ClosureProvider { $0.completeRequest() }, withIdentifier: bad)
            }
        }
        let disabled = try extensions.register(ClosureProvider { $0.completeRequest() }, withIdentifier: "off", isEnabled: false)
        let refused = Outcome<CallDirectoryError?>()
        extensions.reloadExtension(withIdentifier: "off") { refused.set($0) }
        #expect(refused.wait() == .some(.extensionDisabled) && disabled.enabledStatus == .disabled)
    }

    @Test func theSharedInstanceStoresUnderTheUsersDataDirectory() {
        #expect(CallDirectoryManager.sharedInstance === CallDirectoryManager.sharedInstance)
        #expect(CallDirectoryExtensions.defaultStoreDirectory(environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/a"])
                == "/data/voiceengine/call-directory")
        #expect(CallDirectoryExtensions.defaultStoreDirectory(environment: ["HOME": "/home/a"])
                == "/home/a/.local/share/voiceengine/call-directory")
        #expect(CallDirectoryExtensions.defaultStoreDirectory(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/a"])
                == "/home/a/.local/share/voiceengine/call-directory", "XDG: a relative path is ignored")
    }
}
