/// Estimates the delay a packet needs to wait, NetEq-style: each packet's relative arrival
/// delay (its arrival minus its media time, against the fastest packet of the last 2 s, so
/// clock drift is absorbed) goes into a histogram with exponential forgetting, and the target
/// is a high quantile of it. No allocation after `init`.
final class RelativeDelayEstimator {
    /// Histogram bucket width in milliseconds.
    static let bucketMs = 2.0
    /// Forgetting per packet once warmed up (NetEq: 0.983, a memory of about 60 packets' weight
    /// halving every ~40 packets).
    static let forgetFactor = 0.983
    /// Window over which the fastest packet is searched, in milliseconds.
    static let windowMs = 2_000.0
    /// Quantile of the relative delay used as target.
    static let quantile = 0.95

    private let histogram: UnsafeMutableBufferPointer<Double>
    private let windowArrivals: UnsafeMutableBufferPointer<Double>
    private let windowOffsets: UnsafeMutableBufferPointer<Double>
    private var windowNext = 0
    private var windowCount = 0
    /// Packets seen since the last reset.
    private(set) var packetCount = 0
    /// Smallest arrival-minus-media-time offset in the window: the fastest recent packet, in ms.
    private(set) var minimumOffsetMs = 0.0

    init(maximumDelayMs: Int, windowCapacity: Int) {
        histogram = .allocate(capacity: Int(Double(maximumDelayMs) / Self.bucketMs) + 2)
        histogram.initialize(repeating: 0)
        windowArrivals = .allocate(capacity: windowCapacity)
        windowArrivals.initialize(repeating: 0)
        windowOffsets = .allocate(capacity: windowCapacity)
        windowOffsets.initialize(repeating: 0)
    }

    deinit {
        histogram.deallocate()
        windowArrivals.deallocate()
        windowOffsets.deallocate()
    }

    /// Forgets the arrival window (a new stream: its media clock has another origin). The
    /// histogram is kept: the network has not changed.
    func restartStream() {
        windowCount = 0
        windowNext = 0
    }

    /// Adds one packet's arrival: `arrivalMs` on the receiver's clock, `mediaTimeMs` its RTP
    /// timestamp in milliseconds. `updatesHistogram` false: only the fastest-packet window learns from it.
    func add(arrivalMs: Double, mediaTimeMs: Double, updatesHistogram: Bool = true) {
        let offset = arrivalMs - mediaTimeMs
        windowArrivals[windowNext] = arrivalMs
        windowOffsets[windowNext] = offset
        windowNext = (windowNext + 1) % windowArrivals.count
        windowCount = min(windowCount + 1, windowArrivals.count)
        var minimum = offset
        var latest = arrivalMs
        for index in 0..<windowCount { latest = max(latest, windowArrivals[index]) }
        for index in 0..<windowCount where windowArrivals[index] >= latest - Self.windowMs {
            minimum = min(minimum, windowOffsets[index])
        }
        minimumOffsetMs = minimum
        guard updatesHistogram else { return }

        let relative = max(0, offset - minimum)
        let bucket = min(histogram.count - 1, Int(relative / Self.bucketMs))
        packetCount += 1
        // Start as a plain average and settle to the forget factor (as NetEq's start weight does).
        let forget = min(Self.forgetFactor, 1 - 1 / Double(packetCount))
        for index in 0..<histogram.count { histogram[index] *= forget }
        histogram[bucket] += 1 - forget
    }

    /// The `quantile` of the relative delay, in ms (upper edge of its bucket).
    var targetDelayMs: Double {
        var total = 0.0
        for value in histogram { total += value }
        guard total > 0 else { return 0 }
        var cumulative = 0.0
        for index in 0..<histogram.count {
            cumulative += histogram[index]
            if cumulative >= Self.quantile * total { return Double(index + 1) * Self.bucketMs }
        }
        return Double(histogram.count) * Self.bucketMs
    }
}
