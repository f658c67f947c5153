// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import RTP

/// The two-frequency tone of a DTMF key (ITU-T Q.23: a row frequency of 697, 770, 852 or
/// 941 Hz plus a column frequency of 1209, 1336, 1477 or 1633 Hz), played locally while a key
/// press is sent so the user hears the key. Allocation-free.
struct DTMFTone {
    /// Q.23's frequencies, a tuple rather than an array: a static array is built (allocated)
    /// on first use, which would be the first key press, on the audio thread.
    private static let rows: (Double, Double, Double, Double) = (697, 770, 852, 941)
    private static let columns: (Double, Double, Double, Double) = (1_209, 1_336, 1_477, 1_633)

    private static func frequency(_ index: Int, of table: (Double, Double, Double, Double)) -> Double {
        switch index {
        case 0: table.0
        case 1: table.1
        case 2: table.2
        default: table.3
        }
    }
    /// Peak amplitude of each of the two tones (about −20 dBFS).
    static let amplitude = 3_200.0

    private let sampleRate: Double
    private var rowStep = 0.0
    private var columnStep = 0.0
    private var rowPhase = 0.0
    private var columnPhase = 0.0

    init(sampleRate: Int) {
        self.sampleRate = Double(sampleRate)
    }

    /// Starts the tone of `key` from phase 0.
    mutating func start(_ key: DTMFEvent) {
        // 1 2 3 A / 4 5 6 B / 7 8 9 C / * 0 # D
        let (row, column): (Int, Int)
        switch key {
        case .digit1: (row, column) = (0, 0)
        case .digit2: (row, column) = (0, 1)
        case .digit3: (row, column) = (0, 2)
        case .a: (row, column) = (0, 3)
        case .digit4: (row, column) = (1, 0)
        case .digit5: (row, column) = (1, 1)
        case .digit6: (row, column) = (1, 2)
        case .b: (row, column) = (1, 3)
        case .digit7: (row, column) = (2, 0)
        case .digit8: (row, column) = (2, 1)
        case .digit9: (row, column) = (2, 2)
        case .c: (row, column) = (2, 3)
        case .star: (row, column) = (3, 0)
        case .digit0: (row, column) = (3, 1)
        case .pound: (row, column) = (3, 2)
        case .d: (row, column) = (3, 3)
        }
        rowStep = 2 * Double.pi * Self.frequency(row, of: Self.rows) / sampleRate
        columnStep = 2 * Double.pi * Self.frequency(column, of: Self.columns) / sampleRate
        rowPhase = 0
        columnPhase = 0
    }

    /// Adds the next `frame.count` samples of the tone to `frame`, saturating.
    mutating func add(into frame: UnsafeMutableBufferPointer<Int16>) {
        for index in frame.indices {
            let tone = Self.amplitude * (sin(rowPhase) + sin(columnPhase))
            frame[index] = Int16(clamping: Int(frame[index]) + Int(tone.rounded()))
            rowPhase += rowStep
            columnPhase += columnStep
            if rowPhase > 2 * Double.pi { rowPhase -= 2 * Double.pi }
            if columnPhase > 2 * Double.pi { columnPhase -= 2 * Double.pi }
        }
    }
}
