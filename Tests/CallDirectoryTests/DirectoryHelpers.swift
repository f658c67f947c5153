// SPDX-License-Identifier: Apache-2.0
@testable import CallDirectory
import Foundation
import Locking

/// A provider whose request is a closure of the test's.
struct ClosureProvider: CallDirectoryProvider {
    let body: @Sendable (CallDirectoryContext) -> Void
    func beginRequest(with context: CallDirectoryContext) { body(context) }
}

/// A provider whose next request is set by the test (several reloads, one manager).
final class ScriptedProvider: CallDirectoryProvider {
    let next = Locked<(@Sendable (CallDirectoryContext) -> Void)?>(nil)
    func beginRequest(with context: CallDirectoryContext) {
        next.withLock { $0 }?(context)
    }
    /// Sets the next request.
    func then(_ body: @escaping @Sendable (CallDirectoryContext) -> Void) { next.withLock { $0 = body } }
}

/// A fresh directory of the test's own under the temporary directory.
func temporaryDirectory(_ name: String) -> String {
    let path = NSTemporaryDirectory() + "voiceengine-directory-\(getpid())-\(name)-\(UUID().uuidString.prefix(8))"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
