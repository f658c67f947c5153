// SPDX-License-Identifier: Apache-2.0
/// Tells the packets of talk from those of a long pause by payload size, so the codec's
/// impairment is looked up at the bitrate the far end talks at rather than at its average over
/// the other side's turns. Opus in VBR codes silence in a third or less of what a word takes
/// (at 24 kb/s on the fixtures: 20–29 bytes against 50–90), and DTX in a byte or two; a call
/// with turns averaged 18 kb/s from a 24 kb/s sender, and the E-model scored its clean stream
/// as an 18 kb/s codec's (0.85 below PESQ-WB in the demo).
///
/// Talk is a packet of at least `speechShare` of the recent peak payload (a peak that decays by
/// `peakDecay` per packet) and `floorContrast` times the recent smallest one, and the pauses
/// within talk: the packets between two such packets at most `pauseHangover` packets apart. A
/// pause is counted when the next word comes, and never if none comes within the hangover —
/// the other side's turn, or the silence before the far end first speaks. (Counting the
/// packets after each word whether talk resumed or not, and without the floor — a far end
/// silent from the start had its own silence for a peak — read the demo's Bob, quiet through
/// Alice's 8 s turn, at 27 kb/s from a 32 kb/s encoder.) That is the shape of the fixtures the
/// Opus impairment factors were measured on (their short pauses included), where counting
/// only the words read 26–27 kb/s at 24 kb/s. What it counts is below the encoder's target
/// (constrained VBR: 92–94 % of it at 24–32 kb/s on the fixtures), and mapped back to it for
/// the factors (`CodecImpairment.opusTargetBitsPerSecond`). A stream of constant-size packets
/// (CBR, G.711) has no word that stands out: none is talk, and the bitrate is read over every
/// packet (`VoIPMetricsInputs.receivedBitsPerSecond`).
struct SpeechPacketFilter: Sendable {
    /// Packets and payload bytes of talk.
    struct Talk: Equatable {
        var packets = 0
        var bytes = 0
    }

    /// Share of the recent peak payload from which a packet carries a word.
    static let speechShare = 0.35
    /// Decay of the peak per packet (to 95 % over 500 packets, 10 s at 20 ms: the other side's
    /// turn does not bring the threshold down onto its own silence).
    static let peakDecay = 0.9999
    /// The longest pause within talk, in packets (1 s at 20 ms).
    static let pauseHangover = 50
    /// How many times the recent smallest payload a word takes: libopus codes silence in a
    /// third or less of what a word takes (above).
    static let floorContrast = 2.0
    /// How far the floor climbs toward each larger payload, per packet (a time constant of
    /// 1 000 packets, 20 s at 20 ms: a floor a pause set holds through the talk after it).
    static let floorRise = 0.001

    private var peak = 0.0
    private var floor = Double.infinity
    private var sinceWord = Int.max
    /// The pause since the last word, counted once the next word comes.
    private var pause = Talk()

    /// What a packet with `payloadBytes` adds to the talk: nothing (a pause so far, a DTX
    /// packet), or itself with the pause before it (a word). Takes it into the peak.
    mutating func talk(payloadBytes: Int) -> Talk {
        guard payloadBytes > 2 else { return Talk() }  // DTX, or nothing
        let size = Double(payloadBytes)
        peak = max(size, peak * Self.peakDecay)
        floor = size < floor ? size : floor + (size - floor) * Self.floorRise
        if size >= Self.speechShare * peak && size >= Self.floorContrast * floor {
            sinceWord = 0
            defer { pause = Talk() }
            return Talk(packets: pause.packets + 1, bytes: pause.bytes + payloadBytes)
        }
        if sinceWord < Self.pauseHangover {
            sinceWord += 1
            pause.packets += 1
            pause.bytes += payloadBytes
        } else {
            pause = Talk()
        }
        return Talk()
    }
}
