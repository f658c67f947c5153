/// # AudioProcessing
///
/// Signal processing on PCM frames: time-stretching (`TimeStretcher`, one pitch period at a
/// time, found by `PitchPeriodSearch`); echo cancellation (`EchoCanceller`: speexdsp's canceller
/// with our own bulk-delay alignment, `DelayEstimator`, and speexdsp's residual echo
/// suppression); noise suppression, AGC and VAD (`VoiceProcessor`, configured per
/// `VoiceProcessingMode` by `ProcessingConfiguration`); resampling (`Resampler`).
enum AudioProcessingModule {}
