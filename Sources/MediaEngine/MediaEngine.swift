// SPDX-License-Identifier: Apache-2.0
@_exported import CallCore

/// # MediaEngine
///
/// The threaded engine over the sans-I/O call core (`CallCore`, re-exported here):
///
/// - `VoiceEngine` — one audio device's calls on a real-time audio thread (`AudioCycle`: the
///   device's periods through the `CallMixer`) and a network thread (`NetworkLoop`: every
///   call's socket, datagrams into the calls' queues, packets out), with control operations
///   applied between cycles from queues.
/// - `VoiceEngineConfiguration`, `VoiceEngineError`, `VoiceEngineEvent` — how an engine is
///   built, what it refuses, what it reports (device faults, restarts, switches).
/// - `AudioDeviceOpener`, `DeviceLossPolicy` — which device the engine opens and where a call
///   goes when that device disappears.
/// - `CallTransport` — the socket a call's media uses.
enum MediaEngineModule {}
