// SPDX-License-Identifier: Apache-2.0
import Dispatch

/// How the app asks for call actions (CXCallController): a transaction is validated before
/// anything runs, then the provider performs its actions in order through the delegate.
public final class CallController: Sendable {
    /// The provider the transactions go to.
    public let provider: CallProvider
    /// Watches the provider's calls.
    public let callObserver: CallObserver

    /// A controller for `provider` (CallKit finds the app's provider itself; here it is given).
    public init(provider: CallProvider) {
        self.provider = provider
        callObserver = CallObserver(provider: provider)
    }

    /// Requests `transaction`: returns once it was validated and its actions handed to the
    /// delegate (not once they complete).
    /// - Throws: `RequestTransactionError`; nothing of the transaction runs then.
    public func request(_ transaction: CallTransaction) throws(RequestTransactionError) {
        try provider.submit(transaction)
    }

    /// The async form of `request(_:)` (CallKit's `request(_:) async throws`).
    public func request(_ transaction: CallTransaction) async throws(RequestTransactionError) {
        try provider.submit(transaction)
    }

    /// Requests a transaction of `actions`.
    public func requestTransaction(with actions: [CallAction]) throws(RequestTransactionError) {
        try provider.submit(CallTransaction(actions: actions))
    }

    /// Requests a transaction of one action.
    public func requestTransaction(with action: CallAction) throws(RequestTransactionError) {
        try provider.submit(CallTransaction(action: action))
    }

    /// The callback form of `request(_:)`: `completion` gets nil or the error, on `queue`.
    public func request(_ transaction: CallTransaction, queue: DispatchQueue,
                        completion: @escaping @Sendable (RequestTransactionError?) -> Void) {
        do {
            try provider.submit(transaction)
            queue.async { completion(nil) }
        } catch {
            queue.async { completion(error) }
        }
    }
}
