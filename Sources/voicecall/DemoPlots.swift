// SPDX-License-Identifier: Apache-2.0
import Foundation

/// `--plot DIR`: the call over time as SVG files written by hand (no dependencies): one chart
/// per figure, one panel per direction, time across.
enum DemoPlots {
    /// A line to draw: its name, colour and points (s, value); nil values break the line.
    struct Series {
        var name: String
        var colour: String
        var points: [(Double, Double?)]
    }

    /// Writes delay.svg (network vs playout delay), levels.svg (sent and received levels) and
    /// mos.svg (MOS over time) into `directory`; returns their paths.
    static func write(_ report: DemoReport, to directory: String) throws(DemoOutputError) -> [String] {
        let charts: [(String, String, String, (DemoDirectionReport) -> [Series])] = [
            ("delay.svg", "Network delay vs jitter-buffer (playout) delay", "ms", { direction in
                [Series(name: "network (simulator)", colour: "#1f77b4", points: direction.samples.map { ($0.seconds, $0.networkDelayMs) }),
                 Series(name: "jitter buffer", colour: "#d62728", points: direction.samples.map { ($0.seconds, $0.bufferDelayMs) })]
            }),
            ("levels.svg", "Levels: sender's microphone and receiver's playout", "dBFS", { direction in
                [Series(name: "sent (\(direction.from)'s mic)", colour: "#2ca02c", points: direction.samples.map { ($0.seconds, $0.sendLevelDbfs) }),
                 Series(name: "played (\(direction.to))", colour: "#9467bd", points: direction.samples.map { ($0.seconds, $0.receiveLevelDbfs) })]
            }),
            ("mos.svg", "MOS estimate over time (G.107.1, conversational)", "MOS", { direction in
                [Series(name: "MOS", colour: "#ff7f0e", points: direction.samples.map { ($0.seconds, $0.mos) })]
            }),
        ]
        let folder = URL(fileURLWithPath: directory, isDirectory: true)
        var written: [String] = []
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .write(directory, "\(error)")
        }
        for (file, title, unit, series) in charts {
            let panels = report.directions.map { ("\($0.from) → \($0.to)", series($0)) }
            let fixedRange: ClosedRange<Double>? = unit == "MOS" ? 1...4.5 : unit == "dBFS" ? -90...0 : nil
            let svg = chart(title: "\(title) — network \(report.network)", unit: unit, panels: panels,
                            seconds: report.callSeconds, range: fixedRange)
            let url = folder.appendingPathComponent(file)
            do {
                try Data(svg.utf8).write(to: url)
            } catch {
                throw .write(url.path, "\(error)")
            }
            written.append(url.path)
        }
        return written
    }

    /// One SVG: a title, then a panel per entry of `panels` stacked, sharing the time axis.
    static func chart(title: String, unit: String, panels: [(String, [Series])], seconds: Double, range: ClosedRange<Double>?) -> String {
        let width = 800.0, panelHeight = 220.0, left = 60.0, right = 20.0, top = 40.0, gap = 50.0
        let height = top + Double(panels.count) * (panelHeight + gap)
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(left)" y="22" font-size="15">\(escape(title))</text>

            """
        let values = panels.flatMap { $0.1.flatMap { $0.points.compactMap(\.1) } }.filter(\.isFinite)
        var low = range?.lowerBound ?? min(0, values.min() ?? 0)
        var high = range?.upperBound ?? max(values.max() ?? 1, low + 1)
        if range == nil { high = niceCeiling(high) }
        if low >= high { low = high - 1 }
        let span = max(seconds, 0.001)
        for (index, (name, series)) in panels.enumerated() {
            let y0 = top + Double(index) * (panelHeight + gap) + 20
            let plotWidth = width - left - right
            func x(_ t: Double) -> Double { left + min(max(t / span, 0), 1) * plotWidth }
            func y(_ v: Double) -> Double { y0 + panelHeight - (min(max(v, low), high) - low) / (high - low) * panelHeight }
            svg += "<text x=\"\(left)\" y=\"\(format(y0 - 6))\" font-weight=\"bold\">\(escape(name))</text>\n"
            svg += "<rect x=\"\(left)\" y=\"\(format(y0))\" width=\"\(format(plotWidth))\" height=\"\(panelHeight)\" fill=\"none\" stroke=\"#999\"/>\n"
            for step in 0...4 {
                let value = low + (high - low) * Double(step) / 4
                svg += "<line x1=\"\(left)\" x2=\"\(format(left + plotWidth))\" y1=\"\(format(y(value)))\" y2=\"\(format(y(value)))\" stroke=\"#eee\"/>\n"
                svg += "<text x=\"\(format(left - 6))\" y=\"\(format(y(value) + 4))\" text-anchor=\"end\">\(format(value))</text>\n"
            }
            let tick = niceCeiling(span / 6)
            for t in stride(from: 0.0, through: span + tick * 1e-9, by: tick) {
                svg += "<text x=\"\(format(x(t)))\" y=\"\(format(y0 + panelHeight + 16))\" text-anchor=\"middle\">\(format(t)) s</text>\n"
            }
            svg += "<text x=\"14\" y=\"\(format(y0 + panelHeight / 2))\" transform=\"rotate(-90 14 \(format(y0 + panelHeight / 2)))\" text-anchor=\"middle\">\(escape(unit))</text>\n"
            for (number, line) in series.enumerated() {
                // Consecutive known points make one polyline; an unknown value starts a new one.
                var runs: [[String]] = [[]]
                for (t, value) in line.points {
                    if let value, value.isFinite { runs[runs.count - 1].append("\(format(x(t))),\(format(y(value)))") } else if !runs[runs.count - 1].isEmpty { runs.append([]) }
                }
                for run in runs where !run.isEmpty {
                    svg += "<polyline fill=\"none\" stroke=\"\(line.colour)\" stroke-width=\"1.5\" points=\"\(run.joined(separator: " "))\"/>\n"
                }
                let legendX = left + 10 + Double(number) * 220
                svg += "<rect x=\"\(format(legendX))\" y=\"\(format(y0 + 8))\" width=\"12\" height=\"3\" fill=\"\(line.colour)\"/>"
                svg += "<text x=\"\(format(legendX + 16))\" y=\"\(format(y0 + 14))\">\(escape(line.name))</text>\n"
            }
        }
        return svg + "</svg>\n"
    }

    /// 1, 2 or 5 times a power of ten at or above `value`.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0, value.isFinite else { return 1 }
        let power = pow(10, floor(log10(value)))
        for step in [1.0, 2, 5, 10] where step * power >= value { return step * power }
        return 10 * power
    }

    static func format(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(format: "%.1f", value)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
