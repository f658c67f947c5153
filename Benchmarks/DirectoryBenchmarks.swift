// SPDX-License-Identifier: Apache-2.0
import CallDirectory
import CallHistory
import Calls
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// `benchmarks directory`: the call directory and the call history.
/// - Directory: a full reload of 1 and 5 million blocking entries (plus a tenth as many
///   identification entries with 1,000 distinct labels) — the provider filling the context,
///   the store written, fsynced, renamed and read back; opening an existing store (what a new
///   process pays); lookups (half present, half absent, random order, each timed alone with
///   the monotonic clock, its cost and granularity included; then all in one timed loop for
///   the mean) in the store (read into memory) against a binary search over a plain `[Int64]` in memory;
///   bytes per entry on disk against a plain Int64 each.
/// - History: recording one call (its own commit, WAL, synchronous=NORMAL) into a 20,000-call
///   database, and the recent, missed and by-handle queries (50 rows) on it.
struct DirectoryBenchmarks {
    static let group = "directory"
    let report: Report
    var lookups = 200_000

    /// A provider handing over prepared ascending arrays.
    struct ArrayProvider: CallDirectoryProvider {
        let blocking: [Int64]
        let identification: [Int64]
        let labels: [String]
        func beginRequest(with context: CallDirectoryContext) {
            if context.isIncremental {
                context.removeAllBlockingEntries()
                context.removeAllIdentificationEntries()
            }
            context.addBlockingEntries(blocking)
            for (index, number) in identification.enumerated() {
                context.addIdentificationEntry(withNextSequentialPhoneNumber: number, label: labels[index % labels.count])
            }
            context.completeRequest()
        }
    }

    /// Nanoseconds on the monotonic clock.
    @inline(__always) static func nanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// The median and 99th percentile of `samples`.
    static func percentiles(_ samples: [Int64]) -> (median: Double, p99: Double) {
        let sorted = samples.sorted()
        return (Double(sorted[sorted.count / 2]), Double(sorted[min(sorted.count - 1, sorted.count * 99 / 100)]))
    }

    /// A plain binary search (the baseline): whether `array` holds `number`.
    @inline(never) static func plainContains(_ array: [Int64], _ number: Int64) -> Bool {
        var low = 0, high = array.count
        while low < high {
            let middle = (low + high) / 2
            if array[middle] < number { low = middle + 1 } else { high = middle }
        }
        return low < array.count && array[low] == number
    }

    func add(_ name: String, _ value: Double, _ unit: String, baseline: String? = nil, _ baselineValue: Double? = nil) {
        report.add(BenchmarkFigure(group: Self.group, name: name, value: value, unit: unit, baseline: baseline,
                                   baselineValue: baselineValue, ratio: baselineValue.map { $0 > 0 ? value / $0 : 0 }))
    }

    func run() throws {
        report.beginGroup(Self.group, baseline: "binary search over [Int64]; 8 bytes per entry")
        let directory = NSTemporaryDirectory() + "voiceengine-bench-directory-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for count in [1_000_000, 5_000_000] { try directoryFigures(count: count, in: directory) }
        try historyFigures(in: directory)
    }

    func directoryFigures(count: Int, in directory: String) throws {
        var generator = SeededGenerator(seed: UInt64(count))
        var blocking: [Int64] = []
        blocking.reserveCapacity(count)
        var number: Int64 = 44_700_000_000
        for _ in 0..<count {
            number += Int64.random(in: 1...40, using: &generator)
            blocking.append(number)
        }
        let identification = stride(from: 0, to: count, by: 10).map { blocking[$0] }
        let labels = (0..<1_000).map { "Caller \($0)" }
        let provider = ArrayProvider(blocking: blocking, identification: identification, labels: labels)
        let path = directory + "/store-\(count)"
        let millions = count / 1_000_000
        let manager = try CallDirectoryManager(storePath: path, provider: provider, isEnabled: true, maximumEntries: count * 2)
        let loadStart = Self.nanoseconds()
        try manager.reload()
        let loadMs = Double(Self.nanoseconds() - loadStart) / 1e6
        add("\(millions)M: full reload (fill, write, fsync, read back)", loadMs, "ms")
        let openStart = Self.nanoseconds()
        let reopened = try CallDirectoryManager(storePath: path, provider: provider, isEnabled: true, maximumEntries: count * 2)
        let store = reopened.store
        let openMs = Double(Self.nanoseconds() - openStart) / 1e6
        add("\(millions)M: open an existing store", openMs, "ms")
        add("\(millions)M: bytes per entry on disk", Double(store.byteCount) / Double(store.blockingCount + store.identificationCount),
            "B/entry", baseline: "Int64", 8)

        // Probes: half present, half anywhere in the range (mostly absent), random order.
        var probes: [Int64] = []
        probes.reserveCapacity(lookups)
        for index in 0..<lookups {
            probes.append(index % 2 == 0
                ? blocking[Int.random(in: 0..<count, using: &generator)]
                : Int64.random(in: blocking.first!...blocking.last!, using: &generator))
        }
        var ours = [Int64](repeating: 0, count: lookups), theirs = ours
        var hits = (0, 0)
        for round in 0..<2 {  // the first round warms the page cache
            for (index, probe) in probes.enumerated() {
                let a = Self.nanoseconds()
                let found = store.isBlocked(probe)
                let b = Self.nanoseconds()
                let plain = Self.plainContains(blocking, probe)
                let c = Self.nanoseconds()
                if round == 1 {
                    ours[index] = b - a
                    theirs[index] = c - b
                    if found { hits.0 += 1 }
                    if plain { hits.1 += 1 }
                }
            }
        }
        guard hits.0 == hits.1 else { throw DirectoryBenchmarkError.disagreement(ours: hits.0, plain: hits.1) }
        let (oursMedian, oursP99) = Self.percentiles(ours)
        let (plainMedian, plainP99) = Self.percentiles(theirs)
        add("\(millions)M: lookup median", oursMedian, "ns", baseline: "[Int64] search", plainMedian)
        add("\(millions)M: lookup p99", oursP99, "ns", baseline: "[Int64] search", plainP99)
        // The same probes in one timed loop each: the mean without the clock's granularity.
        var found = 0
        let batchStart = Self.nanoseconds()
        for probe in probes where store.isBlocked(probe) { found += 1 }
        let batchMiddle = Self.nanoseconds()
        for probe in probes where Self.plainContains(blocking, probe) { found -= 1 }
        let batchEnd = Self.nanoseconds()
        guard found == 0 else { throw DirectoryBenchmarkError.disagreement(ours: found, plain: 0) }
        add("\(millions)M: lookup mean (one loop)", Double(batchMiddle - batchStart) / Double(lookups), "ns",
            baseline: "[Int64] search", Double(batchEnd - batchMiddle) / Double(lookups))
        var labelTimes: [Int64] = []
        for _ in 0..<lookups / 4 {
            let probe = identification[Int.random(in: 0..<identification.count, using: &generator)]
            let a = Self.nanoseconds()
            _ = store.label(for: probe)
            labelTimes.append(Self.nanoseconds() - a)
        }
        add("\(millions)M: label lookup median", Self.percentiles(labelTimes).median, "ns")
    }

    func historyFigures(in directory: String) throws {
        let history = try CallHistory(path: directory + "/history.sqlite")
        let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
        func entry(_ index: Int) -> CallHistoryEntry {
            CallHistoryEntry(id: UUID(), handle: CallHandle(kind: .phoneNumber, value: "+4420794\(index % 400)"), name: "Caller \(index % 700)",
                             direction: index % 3 == 0 ? .outgoing : .incoming, startDate: start + Double(index) * 60,
                             connectDate: index % 4 == 0 ? nil : start + Double(index) * 60 + 5, endDate: start + Double(index) * 60 + 90,
                             endedReason: index % 4 == 0 ? .unanswered : .remoteEnded)
        }
        try history.record((0..<20_000).map(entry))
        var inserts: [Int64] = []
        for index in 20_000..<21_000 {
            let call = entry(index)
            let a = Self.nanoseconds()
            try history.record(call)
            inserts.append(Self.nanoseconds() - a)
        }
        let insert = Self.percentiles(inserts)
        add("history: record one call (own commit) median", insert.median / 1_000, "us")
        add("history: record one call p99", insert.p99 / 1_000, "us")
        func timed(_ name: String, _ body: () throws -> [CallHistoryEntry]) throws {
            var samples: [Int64] = []
            for _ in 0..<200 {
                let a = Self.nanoseconds()
                let rows = try body()
                samples.append(Self.nanoseconds() - a)
                guard rows.count == 50 else { throw DirectoryBenchmarkError.shortQuery(name, rows.count) }
            }
            add("history: \(name) median (21k calls)", Self.percentiles(samples).median / 1_000, "us")
        }
        try timed("recent 50") { try history.recent(limit: 50) }
        try timed("missed 50") { try history.missed(limit: 50) }
        var handleIndex = 0
        try timed("by handle 50") {
            handleIndex += 1
            return try history.calls(with: CallHandle(kind: .phoneNumber, value: "+4420794\(handleIndex % 400)"), limit: 50)
        }
    }
}

/// A benchmark whose own check failed.
enum DirectoryBenchmarkError: Error, CustomStringConvertible {
    case disagreement(ours: Int, plain: Int)
    case shortQuery(String, Int)

    var description: String {
        switch self {
        case let .disagreement(ours, plain): "the store found \(ours) numbers, the plain search \(plain)"
        case let .shortQuery(name, rows): "\(name) returned \(rows) rows"
        }
    }
}
