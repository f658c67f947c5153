// SPDX-License-Identifier: Apache-2.0
/// The PCMs a softphone can open.
public enum AudioDeviceList {
    /// Every PCM from ALSA's name hints and each card's devices.
    public static func current<Calls: ALSACalls>(calls: Calls) -> [AudioDeviceInfo] { calls.devices() }

    /// Every PCM of the system's ALSA.
    public static func current() -> [AudioDeviceInfo] { SystemALSA().devices() }
}
