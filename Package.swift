// swift-tools-version:6.0
// VoiceEngine: a real-time voice engine and a CallKit-style call model for Linux softphones.
import PackageDescription

/// Debian packages behind each system library (scripts/install-deps installs the same list).
let package = Package(
    name: "VoiceEngine",
    products: [
        .library(name: "Opus", targets: ["Opus"]),
        .library(name: "RTP", targets: ["RTP"]),
        .library(name: "SRTP", targets: ["SRTP"]),
        .library(name: "AudioDevices", targets: ["AudioDevices"]),
        .library(name: "Transport", targets: ["Transport"]),
        .library(name: "DSP", targets: ["DSP"]),
        .library(name: "AudioProcessing", targets: ["AudioProcessing"]),
        .library(name: "JitterBuffer", targets: ["JitterBuffer"]),
        .library(name: "MediaEngine", targets: ["MediaEngine"]),
        .library(name: "AudioSession", targets: ["AudioSession"]),
        .library(name: "Calls", targets: ["Calls"]),
        .library(name: "SessionDescription", targets: ["SessionDescription"]),
        // Test doubles and simulators, as products so an app's own tests can use them too;
        // never dependencies of the libraries above.
        .library(name: "AudioDevicesTesting", targets: ["AudioDevicesTesting"]),
        .library(name: "NetworkSimulation", targets: ["NetworkSimulation"]),
        .executable(name: "voicecall", targets: ["voicecall"]),
        .executable(name: "benchmarks", targets: ["benchmarks"]),
    ],
    targets: [
        // C libraries: module maps only.
        .systemLibrary(name: "COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        .systemLibrary(name: "CSpeexDSP", pkgConfig: "speexdsp", providers: [.apt(["libspeexdsp-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // The C library's eventfd (sys/eventfd.h is not in Swift's Glibc module): SocketPoller's waker.
        .systemLibrary(name: "CEventFD"),

        // C shims: what Swift cannot call (variadic *_ctl, macros). Nothing else.
        .target(name: "CVoiceShims", dependencies: ["COpus", "CALSA"]),

        // Typed errno (Errno) for the I/O layer's errors: pure Swift, no C library of its own.
        .target(name: "SystemErrors"),
        // Locked: a value behind a POSIX mutex (Mutex's interface, on a lock ThreadSanitizer sees).
        .target(name: "Locking"),

        // Protocol / codec.
        .target(name: "Opus", dependencies: ["COpus", "CVoiceShims"]),
        .target(name: "RTP"),  // pure Swift: links no C library
        // SRTP/SRTCP over libsrtp2 and SDES a=crypto. It reads SSRC and sequence number from
        // the header bytes itself and uses no RTP type, so it does not link RTP.
        .target(name: "SRTP", dependencies: ["CSRTP"]),

        // Signal.
        .target(name: "DSP"),
        .target(name: "AudioProcessing", dependencies: ["CSpeexDSP", "DSP"]),
        .target(name: "JitterBuffer", dependencies: ["Opus", "RTP", "DSP"]),

        // I/O.
        .target(name: "AudioDevices", dependencies: ["CALSA", "CVoiceShims", "CEventFD", "SystemErrors", "Locking"]),
        .target(name: "Transport", dependencies: ["CEventFD", "SystemErrors", "Locking"]),

        // Engine.
        .target(name: "MediaEngine", dependencies: ["Opus", "RTP", "SRTP", "JitterBuffer", "AudioProcessing", "AudioDevices", "Transport", "Locking"]),

        // Control: AVAudioSession's model — category/mode/options, the activation gate, interruptions.
        .target(name: "AudioSession", dependencies: ["MediaEngine", "AudioDevices", "AudioProcessing", "SystemErrors", "Locking"]),
        // Control: CallKit's model — provider, controller, actions, transactions, observer —
        // driving the call and ringtone sessions and the engine's calls.
        .target(name: "Calls", dependencies: ["AudioSession", "MediaEngine", "AudioDevices", "RTP", "Locking"]),

        // Signalling: the SDP subset a SIP stack hands over for one SRTP/Opus audio stream, and
        // offer/answer over it (keys from SRTP's a=crypto).
        .target(name: "SessionDescription", dependencies: ["SRTP"]),

        // Programs. voicecall depends on the virtual devices and the network simulator for its
        // demo (as asked in issue 17); no voicecall file imports them yet.
        .executableTarget(
            name: "voicecall",
            dependencies: [
                "MediaEngine", "SRTP", "AudioDevices", "AudioProcessing", "AudioDevicesTesting", "NetworkSimulation",
                "EchoEvaluation", "SessionDescription", "Transport", "Opus",
            ]
        ),
        .executableTarget(
            name: "benchmarks",
            dependencies: [
                "Opus", "RTP", "SRTP", "AudioDevices", "AudioProcessing", "JitterBuffer", "NetworkSimulation", "MediaEngine",
                "COpus", "CSpeexDSP", "CVoiceShims", "CBaseline", "TestSupport", "JitterBufferEvaluation", "EchoEvaluation",
                "MediaEngineTesting", "AudioDevicesTesting", "Transport", "Locking",
            ],
            path: "Benchmarks"
        ),

        // Testing: doubles and simulators for tests, benchmarks and the demo (never linked into
        // the libraries). AudioDevicesTesting: ScriptedALSA, VirtualAudioDevice (ALSACalls
        // without ALSA). NetworkSimulation: G.1050 profiles, NetworkSimulator, NetworkTrace.
        .target(name: "AudioDevicesTesting", dependencies: ["AudioDevices", "SystemErrors", "Locking"]),
        .target(name: "NetworkSimulation"),
        // MediaEngineTesting: a stand-in translation engine (ToneTranslationEngine), two calls
        // joined by simulated links on a virtual clock (CallLoop, SimulatedLink) and a speech
        // fixture played through them for scoring (SpeechCallRun), for the tests and benchmarks.
        .target(name: "MediaEngineTesting", dependencies: ["MediaEngine", "SRTP", "AudioProcessing", "NetworkSimulation", "TestSupport"]),
        // EchoEvaluation: ERLE and convergence over whole recordings and the canceller run over
        // a recording (offline, pure Swift), for the tests, the benchmarks and voicecall aec.
        .target(name: "EchoEvaluation", dependencies: ["AudioProcessing"]),

        // Test and benchmark support (never linked into the libraries).
        .target(name: "CAllocationCounter"),
        .target(name: "CBaseline", dependencies: ["COpus", "CSRTP", "CSpeexDSP"]),
        .target(name: "TestSupport", dependencies: ["CAllocationCounter", "Locking"]),
        .target(name: "JitterBufferEvaluation", dependencies: ["JitterBuffer", "NetworkSimulation", "Opus", "RTP", "CSpeexDSP", "TestSupport"]),

        .testTarget(name: "SystemErrorsTests", dependencies: ["SystemErrors"]),
        .testTarget(name: "OpusTests", dependencies: ["Opus", "TestSupport"]),
        .testTarget(name: "RTPTests", dependencies: ["RTP", "TestSupport"]),
        // CSRTP: the allocation test compares with bare libsrtp calls.
        .testTarget(name: "SRTPTests", dependencies: ["SRTP", "CSRTP", "TestSupport"]),
        .testTarget(name: "DSPTests", dependencies: ["DSP", "TestSupport"]),
        .testTarget(name: "AudioProcessingTests", dependencies: ["AudioProcessing", "EchoEvaluation", "TestSupport"]),
        .testTarget(name: "EchoEvaluationTests", dependencies: ["EchoEvaluation", "TestSupport"]),
        .testTarget(name: "JitterBufferTests", dependencies: ["JitterBuffer", "JitterBufferEvaluation", "TestSupport"]),
        .testTarget(name: "JitterBufferEvaluationTests", dependencies: ["JitterBufferEvaluation", "JitterBuffer", "NetworkSimulation", "TestSupport"]),
        .testTarget(name: "AudioDevicesTests", dependencies: ["AudioDevices", "AudioDevicesTesting", "SystemErrors", "Locking", "TestSupport"]),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "SystemErrors", "TestSupport"]),
        .testTarget(name: "NetworkSimulationTests", dependencies: ["NetworkSimulation", "TestSupport"]),
        .testTarget(name: "MediaEngineTests", dependencies: ["MediaEngine", "Opus", "RTP", "SRTP", "AudioProcessing", "AudioDevices", "AudioDevicesTesting", "Transport", "NetworkSimulation", "MediaEngineTesting", "Locking", "TestSupport"]),
        .testTarget(name: "AudioSessionTests", dependencies: ["AudioSession", "MediaEngine", "AudioProcessing", "AudioDevices", "AudioDevicesTesting", "TestSupport"]),
        .testTarget(name: "CallsTests", dependencies: ["Calls", "AudioSession", "MediaEngine", "MediaEngineTesting", "AudioDevices", "AudioDevicesTesting", "RTP", "SRTP", "Transport", "Locking", "TestSupport"]),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"]),
        .testTarget(name: "VoiceCallTests", dependencies: ["voicecall", "AudioDevices", "EchoEvaluation", "TestSupport"]),
        .testTarget(name: "SessionDescriptionTests", dependencies: ["SessionDescription", "SRTP"]),
    ]
)
