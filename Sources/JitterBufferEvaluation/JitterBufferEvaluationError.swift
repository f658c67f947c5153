// SPDX-License-Identifier: Apache-2.0
/// Why an evaluation could not run.
public enum JitterBufferEvaluationError: Error, Equatable, Sendable {
    /// A C baseline refused to start; the associated value names the call.
    case baselineCreationFailed(String)
    /// The named trace has no committed file in `vectors/traces/`.
    case traceNotCommitted(String)
    /// A packet stream was asked for frames of this many ms, which it does not encode
    /// (`OpusPacketStream.frameDurationsMs`).
    case unsupportedFrameDuration(Int)
}
