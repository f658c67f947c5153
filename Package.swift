// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
// VoiceEngine: a real-time voice engine and a CallKit-style call model for Linux softphones.
import PackageDescription

/// Debian packages behind each system library (scripts/install-deps installs the same list).
let package = Package(
    name: "VoiceEngine",
    products: [
        // The one import a softphone needs: every library below, re-exported.
        .library(name: "VoiceEngineKit", targets: ["VoiceEngineKit"]),
        .library(name: "Opus", targets: ["Opus"]),
        .library(name: "AudioCodecs", targets: ["AudioCodecs"]),
        .library(name: "RTP", targets: ["RTP"]),
        .library(name: "SRTP", targets: ["SRTP"]),
        .library(name: "AudioDevices", targets: ["AudioDevices"]),
        .library(name: "Transport", targets: ["Transport"]),
        .library(name: "DSP", targets: ["DSP"]),
        .library(name: "AudioProcessing", targets: ["AudioProcessing"]),
        .library(name: "JitterBuffer", targets: ["JitterBuffer"]),
        .library(name: "CallQuality", targets: ["CallQuality"]),
        .library(name: "CallCore", targets: ["CallCore"]),
        .library(name: "MediaEngine", targets: ["MediaEngine"]),
        .library(name: "AudioSession", targets: ["AudioSession"]),
        .library(name: "Calls", targets: ["Calls"]),
        .library(name: "CallDirectory", targets: ["CallDirectory"]),
        .library(name: "CallHistory", targets: ["CallHistory"]),
        .library(name: "PushRegistry", targets: ["PushRegistry"]),
        .library(name: "SessionDescription", targets: ["SessionDescription"]),
        .library(name: "CallNegotiation", targets: ["CallNegotiation"]),
        // Test doubles and simulators, as products so an app's own tests can use them too;
        // never dependencies of the libraries above.
        .library(name: "AudioDevicesTesting", targets: ["AudioDevicesTesting"]),
        .library(name: "AudioSessionTesting", targets: ["AudioSessionTesting"]),
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
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSpanDSP", pkgConfig: "spandsp", providers: [.apt(["libspandsp-dev"])]),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CNice", pkgConfig: "nice", providers: [.apt(["libnice-dev"])]),
        // The C library's eventfd (sys/eventfd.h is not in Swift's Glibc module): SocketPoller's waker.
        .systemLibrary(name: "CEventFD"),

        // C shims: what Swift cannot call (variadic *_ctl, macros). Nothing else.
        .target(name: "COpusShims", dependencies: ["COpus"]),
        .target(name: "CALSAShims", dependencies: ["CALSA"]),
        .target(name: "COpenSSLShims", dependencies: ["COpenSSL"]),
        .target(name: "CNiceShims", dependencies: ["CNice"]),

        // Typed errno (Errno) for the I/O layer's errors: pure Swift, no C library of its own.
        .target(name: "SystemErrors"),
        // Locking: the POSIX primitives the threads share — Locked (a value behind a mutex, Mutex's
        // interface on a lock ThreadSanitizer sees) and JoinableThread.
        .target(name: "Locking"),
        // MediaBasics: the clocks (monotonic, wall) and AudioDirection, shared by the call core
        // and the device layer.
        .target(name: "MediaBasics"),

        // Protocol / codec.
        .target(name: "Opus", dependencies: ["COpus", "COpusShims"]),
        // Every codec behind one encoder/decoder interface: Opus (libopus), G.711 (Swift),
        // G.722 (spandsp), resampled to the call's rate where the codec's differs.
        .target(name: "AudioCodecs", dependencies: ["MediaBasics", "Opus", "AudioProcessing", "CSpanDSP"]),
        .target(name: "RTP"),  // pure Swift: links no C library
        // SRTP/SRTCP over libsrtp2 and SDES a=crypto. It reads SSRC and sequence number from
        // the header bytes itself and uses no RTP type, so it does not link RTP.
        .target(name: "SRTP", dependencies: ["CSRTP"]),

        // Signal.
        .target(name: "DSP"),
        .target(name: "AudioProcessing", dependencies: ["CSpeexDSP", "DSP"]),
        // Call quality: the E-model (G.107, G.107.1) and the codecs' impairment factors; what the
        // jitter buffer's target weighs and what a call's quality estimate reports.
        .target(name: "CallQuality"),
        .target(name: "JitterBuffer", dependencies: ["AudioCodecs", "Opus", "RTP", "DSP", "CallQuality"]),

        // I/O.
        .target(name: "AudioDevices", dependencies: ["CALSA", "CALSAShims", "CEventFD", "SystemErrors", "Locking", "MediaBasics"]),
        // UDP sockets, ICE (libnice) and the DTLS handshake that keys DTLS-SRTP (OpenSSL), whose keys are SRTP's.
        .target(name: "Transport", dependencies: ["CEventFD", "SystemErrors", "Locking", "SRTP", "COpenSSL", "COpenSSLShims", "CNice", "CNiceShims"]),

        // Call core: the per-call media (uplink, inbound stream, RTCP session, mixer, statistics,
        // events), sans-I/O: no devices, no sockets, no Foundation.
        .target(name: "CallCore", dependencies: ["AudioCodecs", "Opus", "RTP", "SRTP", "JitterBuffer", "CallQuality", "AudioProcessing", "DSP", "Locking", "MediaBasics"]),

        // Engine: the threaded engine over the call core (audio and network threads, devices,
        // sockets); re-exports CallCore.
        .target(name: "MediaEngine", dependencies: ["CallCore", "AudioProcessing", "AudioDevices", "Transport", "Locking"]),

        // Control: AVAudioSession's model — category/mode/options, the activation gate, interruptions.
        .target(name: "AudioSession", dependencies: ["MediaEngine", "AudioDevices", "AudioProcessing", "SystemErrors", "Locking"]),
        // Control: CallKit's model — provider, controller, actions, transactions, observer —
        // driving the call and ringtone sessions and the engine's calls.
        .target(name: "Calls", dependencies: ["AudioSession", "MediaEngine", "AudioDevices", "RTP", "Locking"]),
        // Control: CXCallDirectoryProvider's model — blocking and identification entries in a
        // memory-mapped store, the number normaliser — consulted by Calls for incoming calls.
        .target(name: "CallDirectory", dependencies: ["Calls", "SystemErrors", "Locking"]),
        // Control: the recents list in SQLite (libsqlite3), recorded from a provider's calls.
        .target(name: "CallHistory", dependencies: ["Calls", "AudioSession", "MediaEngine", "CSQLite", "Locking"]),
        // Control: PushKit's model — VoIP pushes (in-process and UnifiedPush over D-Bus) with
        // the reporting rule enforced against a Calls provider.
        .target(name: "PushRegistry", dependencies: ["Calls", "CDBus", "Locking"]),

        // Signalling: the SDP subset a SIP stack hands over for one SRTP/Opus audio stream, and
        // offer/answer over it (keys from SRTP's a=crypto).
        .target(name: "SessionDescription", dependencies: ["SRTP", "MediaBasics"]),
        // From what offer/answer settled to the call's media (configuration, keys, direction).
        .target(name: "CallNegotiation", dependencies: ["SessionDescription", "CallCore", "Opus", "SRTP", "Transport"]),

        // The umbrella: one import for a softphone (re-exports the libraries above, no testing target).
        .target(name: "VoiceEngineKit", dependencies: [
            "AudioCodecs", "AudioDevices", "AudioProcessing", "AudioSession", "CallDirectory", "CallHistory", "Calls", "JitterBuffer",
            "MediaEngine", "Opus", "PushRegistry", "RTP", "SRTP", "SessionDescription", "CallNegotiation", "SystemErrors", "Transport",
        ]),

        // Programs. voicecall's demo runs two softphones (AudioSession, Calls) on virtual WAV
        // devices (AudioDevicesTesting) through the network simulator.
        .executableTarget(
            name: "voicecall",
            dependencies: [
                "MediaEngine", "MediaBasics", "LatencyEvaluation", "SRTP", "AudioDevices", "AudioProcessing", "AudioDevicesTesting", "NetworkSimulation",
                "EchoEvaluation", "AudioSession", "Calls", "PushRegistry", "SessionDescription", "CallNegotiation", "Transport", "Opus", "Locking",
                "JitterBuffer",
            ]
        ),
        // The example softphone (Examples/, a package of its own depending on VoiceEngineKit as an
        // adopter does), built here from the same sources so that the tests run it.
        .executableTarget(name: "MinimalSoftphone", dependencies: ["VoiceEngineKit"], path: "Examples/Sources/MinimalSoftphone"),
        // The child the crash tests kill with SIGKILL mid-write (history and directory writers).
        .executableTarget(name: "calls-crash-writer", dependencies: ["CallHistory", "CallDirectory", "Calls"]),
        .executableTarget(
            name: "benchmarks",
            dependencies: [
                "Opus", "RTP", "SRTP", "AudioDevices", "AudioProcessing", "JitterBuffer", "NetworkSimulation", "MediaEngine",
                "COpus", "CSpeexDSP", "CSpanDSP", "AudioCodecs", "COpusShims", "CBaseline", "TestSupport", "JitterBufferEvaluation", "EchoEvaluation",
                "MediaEngineTesting", "LatencyEvaluation", "AudioDevicesTesting", "Transport", "Locking", "CallDirectory", "CallHistory", "Calls",
            ],
            path: "Benchmarks"
        ),

        // Testing: doubles and simulators for tests, benchmarks and the demo (never linked into
        // the libraries). AudioDevicesTesting: ScriptedALSA, VirtualAudioDevice (ALSACalls
        // without ALSA). NetworkSimulation: G.1050 profiles, NetworkSimulator, NetworkTrace.
        .target(name: "AudioDevicesTesting", dependencies: ["AudioDevices", "SystemErrors", "Locking"]),
        // AudioSessionTesting: RecordingSessionIO, device I/O that records what a session asks.
        .target(name: "AudioSessionTesting", dependencies: ["AudioSession", "AudioProcessing", "Locking"]),
        .target(name: "NetworkSimulation"),
        // MediaEngineTesting: a stand-in translation engine (ToneTranslationEngine), two calls
        // joined by simulated links on a virtual clock (CallLoop, SimulatedLink) and a speech
        // fixture played through them for scoring (SpeechCallRun), for the tests and benchmarks.
        .target(name: "MediaEngineTesting", dependencies: ["MediaEngine", "SRTP", "AudioProcessing", "NetworkSimulation", "TestSupport", "Transport"]),
        // LatencyEvaluation: mouth-to-ear delay of a call between two engines on real threads,
        // UDP and SRTP, on virtual devices paced in real time, beside the floor of its
        // configuration (MouthToEarMeasurement, MouthToEarFloor), for voicecall latency, the
        // benchmarks and the tests.
        .target(name: "LatencyEvaluation", dependencies: ["MediaEngine", "AudioProcessing", "AudioDevices", "AudioDevicesTesting", "Opus", "SRTP", "Transport"]),
        // EchoEvaluation: ERLE and convergence over whole recordings and the canceller run over
        // a recording (offline, pure Swift), for the tests, the benchmarks and voicecall aec.
        .target(name: "EchoEvaluation", dependencies: ["AudioProcessing"]),

        // Test and benchmark support (never linked into the libraries).
        .target(name: "CAllocationCounter"),
        .target(name: "CBaseline", dependencies: ["COpus", "CSRTP", "CSpeexDSP", "COpenSSL"]),
        .target(name: "TestSupport", dependencies: ["CAllocationCounter", "Locking"]),
        .target(name: "JitterBufferEvaluation", dependencies: ["JitterBuffer", "CallQuality", "NetworkSimulation", "Opus", "RTP", "CSpeexDSP", "TestSupport"]),

        .testTarget(name: "SystemErrorsTests", dependencies: ["SystemErrors"]),
        .testTarget(name: "OpusTests", dependencies: ["Opus", "TestSupport"]),
        .testTarget(name: "AudioCodecsTests", dependencies: ["AudioCodecs", "CSpanDSP", "AudioProcessing", "TestSupport"]),
        .testTarget(name: "RTPTests", dependencies: ["RTP", "TestSupport"]),
        // CSRTP: the allocation test compares with bare libsrtp calls.
        .testTarget(name: "SRTPTests", dependencies: ["SRTP", "CSRTP", "TestSupport"]),
        .testTarget(name: "DSPTests", dependencies: ["DSP", "TestSupport"]),
        .testTarget(name: "AudioProcessingTests", dependencies: ["AudioProcessing", "CSpeexDSP", "EchoEvaluation", "TestSupport"]),
        .testTarget(name: "EchoEvaluationTests", dependencies: ["EchoEvaluation", "TestSupport"]),
        .testTarget(name: "JitterBufferTests", dependencies: ["JitterBuffer", "CallQuality", "AudioCodecs", "JitterBufferEvaluation", "TestSupport"]),
        .testTarget(name: "JitterBufferEvaluationTests", dependencies: ["JitterBufferEvaluation", "JitterBuffer", "NetworkSimulation", "Opus", "RTP", "TestSupport"]),
        .testTarget(name: "AudioDevicesTests", dependencies: ["AudioDevices", "AudioDevicesTesting", "SystemErrors", "Locking", "TestSupport"]),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "SystemErrors", "SRTP", "MediaEngineTesting", "TestSupport"]),
        .testTarget(name: "NetworkSimulationTests", dependencies: ["NetworkSimulation", "TestSupport"]),
        // The call core's own rules (its module boundary, read from the package).
        .testTarget(name: "CallCoreTests", dependencies: ["CallCore"]),
        .testTarget(name: "MediaEngineTests", dependencies: ["CallCore", "AudioCodecs", "MediaEngine", "Opus", "RTP", "SRTP", "AudioProcessing", "AudioDevices", "AudioDevicesTesting", "Transport", "NetworkSimulation", "MediaEngineTesting", "Locking", "TestSupport"]),
        .testTarget(name: "AudioSessionTests", dependencies: ["AudioSession", "MediaEngine", "AudioProcessing", "AudioDevices", "AudioDevicesTesting", "AudioSessionTesting", "TestSupport"]),
        .testTarget(name: "CallsTests", dependencies: ["VoiceEngineKit", "Calls", "SessionDescription", "PushRegistry", "AudioProcessing", "AudioSession", "MediaEngine", "MediaEngineTesting", "AudioDevices", "AudioDevicesTesting", "AudioSessionTesting", "RTP", "SRTP", "Transport", "Locking", "TestSupport"]),
        // calls-crash-writer: the child the crash tests kill (a dependency so `swift test` builds it).
        .testTarget(name: "CallDirectoryTests", dependencies: ["CallDirectory", "Calls", "AudioSession", "Locking", "TestSupport", "calls-crash-writer"]),
        .testTarget(name: "CallHistoryTests", dependencies: ["CallHistory", "Calls", "AudioSession", "MediaEngine", "CSQLite", "Locking", "TestSupport", "calls-crash-writer"]),
        .testTarget(name: "PushRegistryTests", dependencies: ["PushRegistry", "Calls", "AudioSession", "Locking", "TestSupport"]),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport", "MediaBasics"]),
        .testTarget(name: "VoiceCallTests", dependencies: ["voicecall", "MinimalSoftphone", "AudioDevices", "EchoEvaluation", "LatencyEvaluation", "NetworkSimulation", "PushRegistry", "Transport", "TestSupport", "Locking"]),
        .testTarget(name: "SessionDescriptionTests", dependencies: ["SessionDescription", "SRTP", "MediaBasics"]),
        .testTarget(name: "CallNegotiationTests", dependencies: ["CallNegotiation", "SessionDescription", "CallCore", "SRTP", "Transport", "MediaEngineTesting", "TestSupport"]),
    ]
)
