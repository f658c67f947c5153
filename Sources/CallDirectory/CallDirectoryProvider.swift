// SPDX-License-Identifier: Apache-2.0
/// The app's source of blocking and identification entries (CXCallDirectoryProvider): on
/// every `CallDirectoryManager.reload()` it is asked to fill a context, then completes or
/// cancels the request before returning.
///
/// ```swift
/// struct Spam: CallDirectoryProvider {
///     func beginRequest(with context: CallDirectoryContext) {
///         if context.isIncremental { context.removeBlockingEntry(withPhoneNumber: 44_20_7946_0001) }
///         for number in blockedNumbersAscending { context.addBlockingEntry(withNextSequentialPhoneNumber: number) }
///         context.completeRequest()
///     }
/// }
/// ```
public protocol CallDirectoryProvider: Sendable {
    /// Adds (and, when `context.isIncremental`, removes) entries, then calls
    /// `context.completeRequest()` or `context.cancelRequest(reason:)`. The context is valid
    /// only until this returns: use it on the calling thread.
    func beginRequest(with context: CallDirectoryContext)
}
