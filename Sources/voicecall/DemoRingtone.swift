// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Foundation

/// The demo's ringtone: a UK-style double ring (400 + 450 Hz, 0.4 s on, 0.2 s off, 0.4 s on,
/// 2 s off) written as a WAV file for the provider, which loads ringtones from files.
enum DemoRingtone {
    /// Writes it to a private temporary file and returns its path.
    static func write() throws(DemoFlowError) -> String {
        let rate = 48_000
        let samples = (0..<(rate * 3)).map { index -> Int16 in
            let t = Double(index) / Double(rate)
            let on = t < 0.4 || (t >= 0.6 && t < 1.0)
            guard on else { return 0 }
            return Int16(4_000 * (sin(2 * Double.pi * 400 * t) + sin(2 * Double.pi * 450 * t)))
        }
        let path = NSTemporaryDirectory() + "voicecall-demo-ring-\(getpid()).wav"
        do {
            try WAVAudio(sampleRate: rate, channelCount: 1, samples: samples).write(to: URL(fileURLWithPath: path))
        } catch {
            throw .provider("cannot write the ringtone: \(error)")
        }
        return path
    }
}
