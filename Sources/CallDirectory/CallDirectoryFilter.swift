// SPDX-License-Identifier: Apache-2.0
import Calls

/// Blocks and identifies incoming callers from a `CallDirectoryManager`
/// (`CallProvider.incomingCallFilter`): a phone-number handle (or a generic one holding a
/// number or a `tel:` URI) is normalised, then looked up. A handle that is not a number, or
/// that the normaliser refuses, lets the call through unchanged.
public struct CallDirectoryFilter: IncomingCallFilter {
    /// Where the entries come from.
    public let directory: CallDirectoryManager
    /// How handles become numbers.
    public let normalizer: PhoneNumberNormalizer

    /// A filter over `directory`; the default `normalizer` reads numbers as CallKit writes them.
    public init(directory: CallDirectoryManager, normalizer: PhoneNumberNormalizer = PhoneNumberNormalizer()) {
        self.directory = directory
        self.normalizer = normalizer
    }

    public func decision(for handle: CallHandle) -> IncomingCallDecision {
        guard handle.kind != .emailAddress else { return .allow }
        var text = Substring(handle.value)
        if text.lowercased().hasPrefix("tel:") { text = text.dropFirst(4) }
        guard let number = try? normalizer.normalize(String(text)) else { return .allow }
        if directory.isBlocked(number.value) { return .block }
        if let label = directory.label(for: number.value) { return .identify(callerName: label) }
        return .allow
    }
}
