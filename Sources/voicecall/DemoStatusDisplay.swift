// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The live status: one line per direction, rewritten in place on a terminal, printed as plain
/// lines every `plainEverySeconds` otherwise (a log or a pipe gets no control characters).
struct DemoStatusDisplay {
    /// Whether standard output is a terminal.
    let isTerminal: Bool
    /// Spacing of plain lines, s.
    var plainEverySeconds = 2.0
    private var drawn = false
    private var lastPlain = -Double.infinity

    init(isTerminal: Bool = isatty(STDOUT_FILENO) == 1) { self.isTerminal = isTerminal }

    /// One direction's status line.
    static func line(from: String, to: String, _ sample: DemoSample) -> String {
        let mos = sample.mos.map { String(format: "%.2f", $0) } ?? "—"
        let echo = sample.echoSuppressionDb.map { String(format: "%.0f dB", $0) } ?? "—"
        let buffer = sample.bufferDelayMs.map { String(format: "%3.0f ms", $0) } ?? "  — ms"
        let name = "\(from) → \(to)".padding(toLength: 12, withPad: " ", startingAt: 0)
        return String(format: "  %@ %6.1f s  %5.1f kb/s  loss %4.1f %%  jitter %3.0f ms  buffer %@  MOS %@  echo suppression %@",
                      name, sample.seconds, sample.bitrateKbps, sample.lossPercent, sample.jitterMs, buffer, mos, echo)
    }

    /// Shows both directions' latest samples.
    mutating func show(_ lines: [String], seconds: Double, final: Bool = false) {
        if isTerminal {
            // Up over the lines drawn last time, each cleared before it is written again.
            var text = drawn ? "\u{1B}[\(lines.count)A" : ""
            for line in lines { text += "\r\u{1B}[K" + line + "\n" }
            drawn = true
            DemoOutput.write(text)
        } else if final || seconds - lastPlain >= plainEverySeconds - 0.25 {
            // (The tolerance: samples come every 0.5 s give or take a few ms.)
            lastPlain = seconds
            DemoOutput.write(lines.joined(separator: "\n") + "\n")
        }
    }
}

/// The demo's standard output, unbuffered: the flow's lines come from the delegates' queues and
/// the status from the call's thread, and each must appear when it happens, whole.
enum DemoOutput {
    /// Writes `text` as is.
    static func write(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }
    /// Writes `text` and a newline.
    static func line(_ text: String) { write(text + "\n") }
}
