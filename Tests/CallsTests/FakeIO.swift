// SPDX-License-Identifier: Apache-2.0
import AudioSessionTesting

/// A stand-in for device I/O (an engine's, a ringer's): AudioSessionTesting's, shared with the
/// audio session tests.
typealias FakeIO = RecordingSessionIO
