// SPDX-License-Identifier: Apache-2.0
/// # AudioProcessing
///
/// Voice processing on PCM frames, over speexdsp: echo cancellation (`EchoCanceller`:
/// speexdsp's canceller with our own bulk-delay alignment, `DelayEstimator`, and our residual
/// echo suppressor, `ResidualEchoSuppressor`, over `DSP`'s `RealFFT` — or speexdsp's); noise
/// suppression, AGC and VAD (`VoiceProcessor`, configured by `ProcessingConfiguration`,
/// whose presets an audio session's mode picks); resampling (`Resampler`). Pure-Swift building blocks without a
/// C library (FFT, pitch search, time-stretching) live in `DSP`.
enum AudioProcessingModule {}
