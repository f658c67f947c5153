// SPDX-License-Identifier: Apache-2.0
import AudioSessionTesting

/// The sessions' stand-in device I/O (AudioSessionTesting's, shared with the call tests).
typealias RecordingIO = RecordingSessionIO
