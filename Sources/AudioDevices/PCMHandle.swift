// SPDX-License-Identifier: Apache-2.0
/// An open PCM as an `ALSACalls` implementation identifies it: for `SystemALSA` the address of
/// libasound's `snd_pcm_t`, for other implementations any nonzero token they choose (the test
/// doubles number their PCMs from 1).
///
/// A value, not a C pointer, so the call layer's public surface carries no C type and the
/// handle is `Sendable`. Only the implementation that returned it from `open` may interpret it.
public struct PCMHandle: RawRepresentable, Hashable, Sendable {
    /// The implementation's bits for the PCM (never 0).
    public let rawValue: UInt

    /// The handle with the given bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }
}
