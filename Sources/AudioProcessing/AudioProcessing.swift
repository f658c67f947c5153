/// # AudioProcessing
///
/// Signal processing on PCM frames: time-stretching (`TimeStretcher`, one pitch period at a
/// time, found by `PitchPeriodSearch`); echo cancellation (`EchoCanceller`: speexdsp's canceller
/// with our own bulk-delay alignment, `DelayEstimator`, and our residual echo suppressor,
/// `ResidualEchoSuppressor`, over our `RealFFT` — or speexdsp's); noise suppression, AGC and
/// VAD (`VoiceProcessor`, configured per `VoiceProcessingMode` by `ProcessingConfiguration`);
/// resampling (`Resampler`).
enum AudioProcessingModule {}
