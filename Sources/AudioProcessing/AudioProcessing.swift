/// # AudioProcessing
///
/// Signal processing on PCM frames: time-stretching now; echo cancellation, noise
/// suppression, AGC, VAD and resampling as the module grows.
enum AudioProcessingModule {}
