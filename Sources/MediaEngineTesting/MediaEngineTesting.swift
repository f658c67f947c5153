// SPDX-License-Identifier: Apache-2.0
/// # MediaEngineTesting
///
/// Test doubles and harnesses for the call media, never linked into what a softphone ships:
/// `ToneTranslationEngine`, a translator that speaks a tone per word; `CallLoop`, two
/// softphones joined by `SimulatedLink`s (a `NetworkTrace` per datagram) on a virtual clock;
/// `SpeechCallRun`, speech fixtures talked through such a call twice, cut into windows for
/// scoring, with each window's `WindowStatistics`; `FECPlan`, the engine's loss-adaptive FEC
/// and the static plans it is compared with (`benchmarks quality`).
enum MediaEngineTestingModule {}
