// SPDX-License-Identifier: Apache-2.0
import Foundation
import AudioDevices
import MediaEngine
import NetworkSimulation
import Transport

/// `voicecall relay`: a seeded impairment relay between two UDP endpoints, so any two
/// receivers can be compared on the same packets without root or netem.
enum RelayCommand {
    static let usage = """
        usage: voicecall relay --listen HOST:PORT --to HOST:PORT [--network NAME | --trace FILE]
                               [--seed N] [--ptime MS] [--seconds N] [--one-way]
          Datagrams sent to --listen leave for --to through a simulated network, and the
          replies from --to go back to whoever last sent to --listen, through the same network
          drawn with the next seed. An RTP packet meets the fate of its index in the stream
          (its sequence number from the first one seen), so the same seed loses and delays the
          same packets for every receiver put behind the relay, whatever the timing; RTCP and
          other datagrams meet the fate of the packet sent nearest in time.
          --network NAME   \(NetworkCatalog.nameSummary) (default clean)
          --trace FILE     a CSV trace (sequence,send_ms,arrival_ms; empty arrival: lost)
                           for the forward direction instead of a simulated network
          --seed N         the simulator's seed, 0…2147483647 (default 1)
          --ptime MS       the stream's packet interval, 10, 20, 40 or 60 (default 20)
          --seconds N      stop after N seconds (default: at Ctrl-C); the network is drawn
                           for this long, or an hour, and is clean after it
          --one-way        leave the replies unimpaired
        Says on standard error where it listens, and what each direction received, dropped
        and forwarded when it stops.
        """

    /// The longest network drawn in advance, s (later packets pass unimpaired).
    static let maximumDrawnSeconds = 3_600.0

    static func run(_ arguments: inout CommandArguments) throws {
        let listen = try endpoint(arguments.value("--listen"), option: "--listen")
        let destination = try endpoint(arguments.value("--to"), option: "--to")
        let networkName = try arguments.value("--network")
        let tracePath = try arguments.value("--trace")
        guard networkName == nil || tracePath == nil else { throw CommandError.usage("--network and --trace exclude each other") }
        let seed = UInt64(try arguments.integer("--seed", in: 0...2_147_483_647) ?? 1)
        let ptime = try arguments.integer("--ptime", oneOf: [10, 20, 40, 60]) ?? 20
        let seconds = try arguments.seconds("--seconds", upTo: 86_400)
        let oneWay = arguments.flag("--one-way")
        try arguments.finish()

        let drawn = min(seconds ?? maximumDrawnSeconds, maximumDrawnSeconds)
        let forward: SimulatedNetworkPath, backward: SimulatedNetworkPath, described: String
        if let tracePath {
            let trace: NetworkTrace
            do {
                trace = try NetworkTrace(contentsOf: URL(fileURLWithPath: tracePath))
            } catch {
                throw CommandError.failed("--trace \(tracePath): \(error)")
            }
            forward = SimulatedNetworkPath(trace: trace, intervalMs: Double(ptime))
            backward = SimulatedNetworkPath(profile: nil, seconds: drawn, ptimeMs: ptime, seed: seed)
            described = "trace \(tracePath) (\(trace.packets.count) packets, \(String(format: "%.1f", trace.lossRate * 100)) % lost)"
        } else {
            let profile: NetworkProfile
            do {
                profile = try NetworkCatalog.profile(named: networkName ?? "clean")
            } catch {
                throw CommandError.invalidValue(option: "--network", value: networkName ?? "", expected: "a network name (\(NetworkCatalog.nameSummary))")
            }
            forward = SimulatedNetworkPath(profile: profile, seconds: drawn, ptimeMs: ptime, seed: seed)
            backward = SimulatedNetworkPath(profile: oneWay ? nil : profile, seconds: drawn, ptimeMs: ptime, seed: seed &+ 1)
            described = "network \(profile.name) (seed \(seed))"
        }

        let front: UDPSocket, back: UDPSocket
        do {
            front = try RealCallSetup.openSocket(listen)
            back = try RealCallSetup.openSocket(UDPEndpoint(host: destination.host.contains(":") ? "::" : "0.0.0.0", port: 0))
        } catch {
            throw CommandError.failed("\(error)")
        }
        let relay = ImpairmentRelay(front: front, back: back, forward: forward, backward: backward, indexing: .rtpIndex)
        RealCallSetup.handleInterrupts()
        do {
            try relay.start(frontPeer: nil, backPeer: destination)
        } catch {
            throw CommandError.failed("--to \(destination): \(error)")
        }
        FileHandle.standardError.write(Data("voicecall relay: listening on \(front.localEndpoint), to \(destination), \(described)\(oneWay ? ", replies unimpaired" : "")\n".utf8))
        let end = seconds.map { MonotonicClock.nanoseconds + Int64($0 * 1e9) }
        while !RealCallSetup.interrupted.load(ordering: .relaxed), end.map({ MonotonicClock.nanoseconds < $0 }) ?? true {
            MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 20_000_000)
        }
        relay.stop()
        let counts = relay.counts
        FileHandle.standardError.write(Data("voicecall relay: \(report("forward", counts.forward)); \(report("replies", counts.backward))\n".utf8))
    }

    static func report(_ direction: String, _ counts: ImpairmentRelay.DirectionCounts) -> String {
        "\(direction): received \(counts.received), dropped \(counts.dropped), forwarded \(counts.forwarded), undeliverable \(counts.undeliverable)"
    }

    private static func endpoint(_ text: String?, option: String) throws -> UDPEndpoint {
        guard let text else { throw CommandError.usage("relay needs \(option) HOST:PORT\n\(usage)") }
        do {
            return try RealCallOptions.endpoint(text, option: option)
        } catch {
            throw CommandError.usage("\(error)")
        }
    }
}
