/// # AudioProcessing
///
/// Signal processing on PCM frames: time-stretching now (`TimeStretcher`, one pitch period at
/// a time, found by `PitchPeriodSearch`); echo cancellation, noise suppression, AGC, VAD and
/// resampling as the module grows.
enum AudioProcessingModule {}
