// SPDX-License-Identifier: Apache-2.0
/// Why the call flow stopped.
enum DemoFlowError: Error, CustomStringConvertible {
    /// The push could not be delivered or reported.
    case push(String)
    /// A provider or controller refused a step.
    case provider(String)
    /// An engine could not be made or refused the call.
    case engine(String)
    /// The media could not run.
    case media(String)

    var description: String {
        switch self {
        case let .push(detail): return "push: \(detail)"
        case let .provider(detail): return "call flow: \(detail)"
        case let .engine(detail): return "engine: \(detail)"
        case let .media(detail): return "media: \(detail)"
        }
    }
}
