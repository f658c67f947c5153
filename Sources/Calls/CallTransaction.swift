// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Actions the app asks for together (CXTransaction): validated as a whole before any of
/// them runs, then performed in order.
public struct CallTransaction: Sendable {
    /// This transaction's identity.
    public let uuid = UUID()
    /// The actions, in the order they are performed.
    public private(set) var actions: [CallAction]

    /// A transaction of `actions`.
    public init(actions: [CallAction] = []) {
        self.actions = actions
    }

    /// A transaction of one action.
    public init(action: CallAction) {
        actions = [action]
    }

    /// Appends `action`.
    public mutating func addAction(_ action: CallAction) {
        actions.append(action)
    }
}
