// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
// VoiceEngine's examples as a package of their own, depending on VoiceEngine the way a
// softphone does: one product, VoiceEngineKit. `swift run --package-path Examples
// MinimalSoftphone --help` from the repository's root.
import PackageDescription

let package = Package(
    name: "VoiceEngineExamples",
    dependencies: [
        // A softphone names the repository's URL and a version instead: see the README.
        .package(name: "VoiceEngine", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "MinimalSoftphone",
            dependencies: [.product(name: "VoiceEngineKit", package: "VoiceEngine")]
        ),
    ]
)
