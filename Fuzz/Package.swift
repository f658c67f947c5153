// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
// libFuzzer targets for VoiceEngine (issue 16). A package of its own, so that a plain
// `swift build` / `swift test` of VoiceEngine never sees them: `scripts/fuzz` builds this one
// with coverage and AddressSanitizer and links libFuzzer (see Fuzz/README.md).
import PackageDescription

let package = Package(
    name: "VoiceEngineFuzz",
    dependencies: [.package(name: "VoiceEngine", path: "..")],
    targets: [
        // Declares libFuzzer's LLVMFuzzerRunDriver (the runtime itself is linked by scripts/fuzz).
        .target(name: "CFuzzerDriver"),
        .executableTarget(
            name: "voiceengine-fuzz",
            dependencies: [
                "CFuzzerDriver",
                .product(name: "RTP", package: "VoiceEngine"),
                .product(name: "SRTP", package: "VoiceEngine"),
                .product(name: "Transport", package: "VoiceEngine"),
                .product(name: "Opus", package: "VoiceEngine"),
                .product(name: "JitterBuffer", package: "VoiceEngine"),
                .product(name: "AudioDevices", package: "VoiceEngine"),
                .product(name: "NetworkSimulation", package: "VoiceEngine"),
                .product(name: "MediaEngine", package: "VoiceEngine"),
                .product(name: "PushRegistry", package: "VoiceEngine"),
                .product(name: "SessionDescription", package: "VoiceEngine"),
                .product(name: "CallNegotiation", package: "VoiceEngine"),
                .product(name: "CallDirectory", package: "VoiceEngine"),
                .product(name: "CallHistory", package: "VoiceEngine"),
            ]
        ),
    ]
)
