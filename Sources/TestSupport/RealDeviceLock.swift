// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one real audio device the tests use (the PulseAudio loopback): every test that opens
/// it, starts or stops its daemon, holds this lock, so suites of different test targets
/// (AudioDevicesTests, MediaEngineTests), which Swift Testing runs in parallel in one process,
/// and other test processes never use it at the same time.
public enum RealDeviceLock {
    /// `/tmp/voiceengine-real-device-<user>.lock`.
    public static let path: String = "/tmp/voiceengine-real-device-\(userName).lock"

    private static let lock = CrossProcessLock(path: path)

    /// The user's name, or their uid where the name is unknown.
    private static var userName: String {
        let uid = getuid()
        if let entry = getpwuid(uid), let name = entry.pointee.pw_name { return String(cString: name) }
        return String(uid)
    }

    /// Runs `body` while no other test, thread or process uses the real device. Not reentrant.
    public static func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        try lock.withLock(body)
    }
}
