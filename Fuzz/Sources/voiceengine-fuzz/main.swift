// SPDX-License-Identifier: Apache-2.0
// voiceengine-fuzz TARGET [libFuzzer flags and corpus directories]
// voiceengine-fuzz --seeds DIR      writes every target's seed corpus under DIR/<target>/
// voiceengine-fuzz --list           prints the target names
//
// One binary for every target (one sanitizer link instead of ten); the first argument picks
// the target and the rest goes to libFuzzer unchanged, so a crash reproduces with
// `voiceengine-fuzz rtp out/fuzz/rtp/crash-…`.
import CFuzzerDriver
import Glibc

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    printError("usage: voiceengine-fuzz TARGET [libFuzzer flags] [CORPUS…] | --seeds DIR | --list\ntargets: \(FuzzTarget.all.map(\.name).joined(separator: " "))\n")
    exit(2)
}
switch arguments[1] {
case "--list":
    for target in FuzzTarget.all { print(target.name) }
    exit(0)
case "--seeds":
    guard arguments.count == 3 else { printError("usage: voiceengine-fuzz --seeds DIR\n"); exit(2) }
    do {
        try SeedCorpus.write(under: arguments[2])
    } catch {
        printError("voiceengine-fuzz: \(error)\n")
        exit(1)
    }
    exit(0)
default:
    guard let target = FuzzTarget.named(arguments[1]) else {
        printError("voiceengine-fuzz: no target \(arguments[1]); targets: \(FuzzTarget.all.map(\.name).joined(separator: " "))\n")
        exit(2)
    }
    FuzzTarget.selected = target
    // libFuzzer sees argv without the target name (argv[0] stays the program).
    var argc = CommandLine.argc - 1
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    argv![1] = argv![0]
    argv = argv! + 1
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        FuzzTarget.selected!.run(UnsafeRawBufferPointer(start: data, count: size))
        return 0
    })
}
