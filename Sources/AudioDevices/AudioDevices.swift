// SPDX-License-Identifier: Apache-2.0
/// # AudioDevices
///
/// Where audio enters and leaves the engine: ALSA capture and playback streams
/// (`ALSAStream`, generic over the ALSA call layer `ALSACalls`), the device list and card
/// hot-plug (`AudioDeviceList`, `DeviceChangeMonitor`), a loopback latency probe, and WAV
/// files. Everything here is an adapter around the sans-I/O media core: a real-time I/O thread
/// per stream moves whole periods between the device and preallocated rings, and recovers from
/// xruns, suspends and unplugs by itself.
///
/// Devices without ALSA (the null and WAV file devices) and the scripted fault layer live in
/// `AudioDevicesTesting`, so a softphone does not link them.
enum AudioDevicesModule {}
