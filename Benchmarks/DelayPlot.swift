// SPDX-License-Identifier: Apache-2.0
import Foundation
import JitterBufferEvaluation
import NetworkSimulation

/// An SVG figure of one trace: each packet's network delay (dots, at its send time), lost
/// packets (marks under the axis), and the send→play delay of each jitter buffer over time
/// (lines), with the oracle's fixed delay dashed, axes and a legend.
struct DelayPlot {
    /// One playout line.
    struct Series {
        var label: String
        var color: String
        /// (receiver time ms, send→play delay ms) per played packet, in time order.
        var points: [(x: Double, y: Double)]
    }

    var title: String
    var trace: NetworkTrace
    var series: [Series]
    /// Oracle delay D and its label, drawn as a dashed horizontal line.
    var oracle: (delayMs: Double, label: String)?

    static let width = 1_000.0
    static let height = 480.0
    static let left = 70.0, right = 20.0, top = 64.0, bottom = 60.0

    /// A series from a run: each played packet at its play time.
    static func series(_ label: String, color: String, run: PlayoutRun, trace: NetworkTrace) -> Series {
        let points = trace.packets.compactMap { packet in
            run.playTimeMs[packet.sequence].map { (x: $0, y: $0 - packet.sendMs) }
        }.sorted { $0.x < $1.x }
        return Series(label: label, color: color, points: points)
    }

    /// The SVG text.
    var svg: String {
        let delays = trace.delaysMs.sorted()
        let durationMs = max(trace.packets.last?.sendMs ?? 1_000, 1_000)
        // Y range: up to the larger of the 99th percentile network delay and every playout line
        // (rarer outliers sit on the top edge); down to 0, or below when clocks drift.
        let networkTop = delays.isEmpty ? 100 : delays[min(delays.count - 1, Int(Double(delays.count) * 0.99))]
        let yMin = (delays.first ?? 0) < 0 ? -Self.niceCeiling(-delays[0]) : 0
        let linesTop = series.flatMap { $0.points.map(\.y) }.max() ?? 0
        let yMax = Self.niceCeiling(max(networkTop, linesTop, oracle?.delayMs ?? 0) * 1.1)
        let xMax = durationMs / 1_000
        let plotWidth = Self.width - Self.left - Self.right
        let plotHeight = Self.height - Self.top - Self.bottom
        func x(_ ms: Double) -> Double { Self.left + min(max(ms / 1_000 / xMax, 0), 1) * plotWidth }
        func y(_ ms: Double) -> Double { Self.top + plotHeight - min(max((ms - yMin) / (yMax - yMin), 0), 1) * plotHeight }
        func f(_ value: Double) -> String { String(format: "%.1f", value) }

        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(Self.width))" height="\(Int(Self.height))" \
        viewBox="0 0 \(Int(Self.width)) \(Int(Self.height))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(f(Self.width / 2))" y="22" text-anchor="middle" font-size="15">\(Self.escape(title))</text>

        """
        // Grid and tick labels.
        let yStep = Self.niceStep((yMax - yMin) / 6)
        var tick = (yMin / yStep).rounded(.up) * yStep
        while tick <= yMax + 1e-9 {
            svg += "<line x1=\"\(f(Self.left))\" y1=\"\(f(y(tick)))\" x2=\"\(f(Self.width - Self.right))\" y2=\"\(f(y(tick)))\" stroke=\"#e4e4e4\"/>\n"
            svg += "<text x=\"\(f(Self.left - 6))\" y=\"\(f(y(tick) + 4))\" text-anchor=\"end\">\(Int(tick))</text>\n"
            tick += yStep
        }
        let xStep = Self.niceStep(xMax / 10)
        tick = 0
        while tick <= xMax + 1e-9 {
            let px = x(tick * 1_000)
            svg += "<line x1=\"\(f(px))\" y1=\"\(f(Self.top))\" x2=\"\(f(px))\" y2=\"\(f(Self.top + plotHeight))\" stroke=\"#f0f0f0\"/>\n"
            svg += "<text x=\"\(f(px))\" y=\"\(f(Self.top + plotHeight + 18))\" text-anchor=\"middle\">\(Self.label(tick))</text>\n"
            tick += xStep
        }
        // Axes and their titles.
        svg += "<line x1=\"\(f(Self.left))\" y1=\"\(f(Self.top + plotHeight))\" x2=\"\(f(Self.width - Self.right))\" y2=\"\(f(Self.top + plotHeight))\" stroke=\"black\"/>\n"
        svg += "<line x1=\"\(f(Self.left))\" y1=\"\(f(Self.top))\" x2=\"\(f(Self.left))\" y2=\"\(f(Self.top + plotHeight))\" stroke=\"black\"/>\n"
        svg += "<text x=\"\(f(Self.left + plotWidth / 2))\" y=\"\(f(Self.height - 14))\" text-anchor=\"middle\">time (s)</text>\n"
        svg += "<text transform=\"translate(18 \(f(Self.top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">delay (ms)</text>\n"

        // Network delay per packet; packets above the range sit on the top edge.
        svg += "<g fill=\"#8a8a8a\" fill-opacity=\"0.55\">\n"
        for packet in trace.packets {
            guard let delay = packet.delayMs else { continue }
            svg += "<circle cx=\"\(f(x(packet.sendMs)))\" cy=\"\(f(y(delay)))\" r=\"1.4\"/>\n"
        }
        svg += "</g>\n<g stroke=\"#d62728\" stroke-width=\"1\">\n"
        for packet in trace.packets where packet.arrivalMs == nil {
            let px = f(x(packet.sendMs))
            svg += "<line x1=\"\(px)\" y1=\"\(f(Self.top + plotHeight + 2))\" x2=\"\(px)\" y2=\"\(f(Self.top + plotHeight + 7))\"/>\n"
        }
        svg += "</g>\n"
        if let oracle {
            svg += "<line x1=\"\(f(Self.left))\" y1=\"\(f(y(oracle.delayMs)))\" x2=\"\(f(Self.width - Self.right))\" y2=\"\(f(y(oracle.delayMs)))\" stroke=\"#2ca02c\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n"
        }
        for line in series where !line.points.isEmpty {
            let path = line.points.map { "\(f(x($0.x))),\(f(y($0.y)))" }.joined(separator: " ")
            svg += "<polyline fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"1.6\" stroke-linejoin=\"round\" points=\"\(path)\"/>\n"
        }

        // Legend: one row between the title and the plot.
        var entries: [(String, String, String)] = [("network delay per packet", "#8a8a8a", "dot"), ("lost", "#d62728", "mark")]
        entries += series.map { ($0.label, $0.color, "line") }
        if let oracle { entries.append((oracle.label, "#2ca02c", "dash")) }
        var legendX = Self.left
        let rowY = 48.0
        for (label, color, style) in entries {
            switch style {
            case "dot": svg += "<circle cx=\"\(f(legendX + 12))\" cy=\"\(f(rowY - 4))\" r=\"3\" fill=\"\(color)\"/>\n"
            case "mark": svg += "<line x1=\"\(f(legendX + 12))\" y1=\"\(f(rowY - 9))\" x2=\"\(f(legendX + 12))\" y2=\"\(f(rowY + 1))\" stroke=\"\(color)\" stroke-width=\"2\"/>\n"
            default:
                let dash = style == "dash" ? " stroke-dasharray=\"6 4\"" : ""
                svg += "<line x1=\"\(f(legendX))\" y1=\"\(f(rowY - 4))\" x2=\"\(f(legendX + 24))\" y2=\"\(f(rowY - 4))\" stroke=\"\(color)\" stroke-width=\"2\"\(dash)/>\n"
            }
            svg += "<text x=\"\(f(legendX + 30))\" y=\"\(f(rowY))\">\(Self.escape(label))</text>\n"
            legendX += 30 + Double(label.count) * 6.4 + 16
        }
        svg += "</svg>\n"
        return svg
    }

    /// Writes the SVG to `directory/<name>.svg`.
    func write(to directory: String, name: String) throws {
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data(svg.utf8).write(to: url.appendingPathComponent(name + ".svg"))
    }

    private static func niceStep(_ rough: Double) -> Double {
        guard rough > 0 else { return 1 }
        let magnitude = pow(10, (log10(rough)).rounded(.down))
        for factor in [1.0, 2, 2.5, 5, 10] where factor * magnitude >= rough { return factor * magnitude }
        return 10 * magnitude
    }

    private static func niceCeiling(_ value: Double) -> Double {
        let step = niceStep(max(value, 10) / 6)
        return (max(value, 10) / step).rounded(.up) * step
    }

    private static func label(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
