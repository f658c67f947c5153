// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioProcessing
import Foundation
import TestSupport

/// PESQ-WB (ITU-T P.862.2) of reference/degraded pairs, from PyPI's `pesq` in the virtual
/// environment `scripts/pesq-venv` makes: one Python process (`scripts/pesq-score`) scores
/// the whole batch — one process per pair would spend more time starting Python than
/// scoring. It starts with the first pair and is handed each pair as its 16 kHz WAV files
/// are written, so it scores on the second core while the calls are simulated.
///
/// Audio arrives at 48 kHz and is brought to 16 kHz here, by the project's `Resampler` at its
/// best quality (speexdsp level 10), the same filter for references and degraded signals;
/// each degraded signal is then cut by `ScoringWindow`'s rule.
final class PESQScorer {
    /// The errors of scoring: what failed, with the tool's own words.
    enum Failure: Error, CustomStringConvertible {
        case environment(String)
        case scoring(String)

        var description: String {
            switch self {
            case let .environment(what): return "PESQ environment: \(what)"
            case let .scoring(what): return "PESQ scoring: \(what)"
            }
        }
    }

    /// The repository's root (where `scripts/` and `out/` are).
    static let repositoryRoot = VectorFiles.directory.deletingLastPathComponent()

    /// The Python that runs `scripts/pesq-score`.
    let python: String
    /// Where the WAV files and the pair list are written.
    let directory: URL
    private var pairs: [(reference: URL, degraded: URL, narrowband: Bool)] = []
    /// The scoring process and the ends of its pipes, from the first pair on.
    private var process: (process: Process, input: FileHandle, output: FileHandle)?
    private var references: [String: (url: URL, samples: [Int16])] = [:]

    /// A scorer writing into `directory` (emptied of earlier WAVs) and running `python`.
    init(python: String, directory: URL) throws {
        self.python = python
        self.directory = directory
        let files = FileManager.default
        if files.fileExists(atPath: directory.path) {
            for name in try files.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".wav") {
                try files.removeItem(at: directory.appendingPathComponent(name))
            }
        }
        try files.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The Python of the environment `scripts/pesq-venv` makes (or reuses: it is idempotent),
    /// creating it with pip on first use.
    static func preparedPython() throws -> String {
        let output = try run(repositoryRoot.appendingPathComponent("scripts/pesq-venv").path, arguments: [])
        guard output.status == 0, let path = output.standardOutput.split(separator: "\n").last.map(String.init), !path.isEmpty else {
            throw Failure.environment("scripts/pesq-venv exited with status \(output.status): see its messages above")
        }
        return path
    }

    /// Queues `degraded` (48 kHz) against the reference `referenceName` (48 kHz; written once
    /// per name, so a fixture scored many times is converted once). `name` names the file;
    /// `narrowband` scores with P.862's narrow-band mode (G.711) instead of P.862.2.
    /// Returns the pair's index in the batch.
    @discardableResult
    func add(referenceName: String, reference: [Int16], degraded: [Int16], name: String, narrowband: Bool = false) throws -> Int {
        let wideReference: (url: URL, samples: [Int16])
        if let written = references[referenceName] {
            wideReference = written
        } else {
            wideReference = (directory.appendingPathComponent("reference-\(Self.fileName(referenceName)).wav"), try Self.wideBand(reference))
            try WAVAudio(sampleRate: 16_000, channelCount: 1, samples: wideReference.samples).write(to: wideReference.url)
            references[referenceName] = wideReference
        }
        let degradedURL = directory.appendingPathComponent(Self.fileName(name) + ".wav")
        let cut = ScoringWindow.cut(try Self.wideBand(degraded), reference: wideReference.samples)
        try WAVAudio(sampleRate: 16_000, channelCount: 1, samples: cut).write(to: degradedURL)
        pairs.append((wideReference.url, degradedURL, narrowband))
        let mode = narrowband ? "\tnb" : ""
        try scoringProcess().input.write(contentsOf: Data("\(wideReference.url.path)\t\(degradedURL.path)\(mode)\n".utf8))
        return pairs.count - 1
    }

    /// The MOS-LQO of every pair queued, in the order queued (nil where PESQ refused a pair;
    /// its reason is printed), once the process has scored the last. The pairs are also
    /// listed in `pairs.tsv` beside the files, to score again by hand.
    func score() throws -> [Double?] {
        let list = directory.appendingPathComponent("pairs.tsv")
        try pairs.map { "\($0.reference.path)\t\($0.degraded.path)\($0.narrowband ? "\tnb" : "")\n" }.joined().write(to: list, atomically: true, encoding: .utf8)
        let scoring = try scoringProcess()
        try scoring.input.close()
        let data = scoring.output.readDataToEndOfFile()
        scoring.process.waitUntilExit()
        process = nil
        guard scoring.process.terminationStatus == 0 else {
            throw Failure.scoring("scripts/pesq-score exited with status \(scoring.process.terminationStatus)")
        }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        guard lines.count == pairs.count else {
            throw Failure.scoring("\(lines.count) scores for \(pairs.count) pairs")
        }
        return zip(lines, pairs).map { line, pair in
            guard let value = Double(line), value.isFinite else {
                print("PESQ refused \(pair.degraded.lastPathComponent): \(line)")
                return nil
            }
            return value
        }
    }

    /// `samples` at 48 kHz brought to 16 kHz (the filter's delay flushed with silence).
    static func wideBand(_ samples: [Int16]) throws -> [Int16] {
        let resampler = try Resampler(inputRate: 48_000, outputRate: 16_000, quality: .best)
        let input = samples + [Int16](repeating: 0, count: resampler.inputLatency)
        var output = [Int16](repeating: 0, count: input.count / 3 + 16)
        let (_, written) = input.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { resampler.process(input, into: $0) }
        }
        return Array(output.prefix(min(written, samples.count / 3)))
    }

    /// The scoring process, started on first use: `scripts/pesq-score` reading pairs from its
    /// standard input. Its answers wait in the pipe (a few bytes per pair) until `score()`.
    private func scoringProcess() throws -> (process: Process, input: FileHandle, output: FileHandle) {
        if let process { return process }
        let started = Process()
        started.executableURL = URL(fileURLWithPath: python)
        started.arguments = [Self.repositoryRoot.appendingPathComponent("scripts/pesq-score").path, "-"]
        let input = Pipe()
        let output = Pipe()
        started.standardInput = input
        started.standardOutput = output
        do {
            try started.run()
        } catch {
            throw Failure.environment("cannot run \(python): \(error)")
        }
        let handles = (started, input.fileHandleForWriting, output.fileHandleForReading)
        process = handles
        return handles
    }

    private static func fileName(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" })
    }

    /// Runs `executable` with `arguments`, its standard error passed through; returns its
    /// exit status and standard output.
    private static func run(_ executable: String, arguments: [String]) throws -> (status: Int32, standardOutput: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        do {
            try process.run()
        } catch {
            throw Failure.environment("cannot run \(executable): \(error)")
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
