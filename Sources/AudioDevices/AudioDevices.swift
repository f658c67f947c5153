/// # AudioDevices
///
/// Where audio enters and leaves the engine: WAV files now; ALSA capture and playback,
/// device lists and the null device as the device layer grows. Everything here is an
/// adapter around the sans-I/O media core.
enum AudioDevicesModule {}
