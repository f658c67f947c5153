import AudioSessionTesting

/// The sessions' stand-in device I/O (AudioSessionTesting's, shared with the call tests).
typealias RecordingIO = RecordingSessionIO
