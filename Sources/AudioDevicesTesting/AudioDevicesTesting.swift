// SPDX-License-Identifier: Apache-2.0
/// # AudioDevicesTesting
///
/// `ALSACalls` implementations without a sound card, for tests, benchmarks and demos:
/// `ScriptedALSA` plays back scripted faults (xruns, suspends, unplugs, hot-plugged cards) and
/// `VirtualAudioDevice` is a null or WAV file device paced in real time or as fast as possible.
/// An `ALSAStream` runs on them unchanged. Kept out of `AudioDevices` so that what a softphone
/// ships does not carry test doubles.
enum AudioDevicesTestingModule {}
