// SPDX-License-Identifier: Apache-2.0
import JitterBufferEvaluation
import Testing

/// `LiveSinkTimeline`: GStreamer's buffer messages read, and the file laid out as a live sink
/// plays it.
@Suite struct LiveSinkTimelineTests {
    /// Sizes and stamps out of range (a negative or huge size, hours that would overflow the
    /// nanoseconds, minutes past 59, a signed fraction) are skipped, not trapped on.
    @Test func readsIdentitysChainMessages() {
        let log = """
            /GstPipeline:pipeline0/GstIdentity:identity0: last-message = chain   ******* (identity0:sink) (1920 bytes, dts: none, pts: 0:00:01.250000000, duration: 0:00:00.020000000, offset: 0, offset_end:  960, flags: 00000040 discont , meta: none) 0x55d5e643e5a0
            /GstPipeline:pipeline0/GstIdentity:identity0: last-message = event   ******* (identity0:sink) E (type: segment (17934), )
            /GstPipeline:pipeline0/GstIdentity:identity0: last-message = chain   ******* (identity0:sink) (960 bytes, dts: none, pts: 1:02:03.000000500, duration: 0:00:00.010000000, offset: 960, offset_end:  1440, flags: 00000000 , meta: none) 0x55d5e643e6c0
            /GstPipeline:pipeline0/GstIdentity:identity0: last-message = chain   ******* (identity0:sink) (960 bytes, dts: none, pts: none, duration: none)
            chain (-960 bytes, dts: none, pts: 0:00:01.000000000, duration: none)
            chain (99999999999999999 bytes, dts: none, pts: 0:00:01.000000000, duration: none)
            chain (960 bytes, dts: none, pts: 9223372036854775807:00:00.000000000, duration: none)
            chain (960 bytes, dts: none, pts: 0:75:00.000000000, duration: none)
            chain (960 bytes, dts: none, pts: 0:00:01.-00000001, duration: none)
            """
        #expect(LiveSinkTimeline.buffers(inLog: log) == [
            .init(ptsNanoseconds: 1_250_000_000, samples: 960),
            .init(ptsNanoseconds: ((1 * 60 + 2) * 60 + 3) * 1_000_000_000 + 500, samples: 480),
        ])
    }

    /// A pause in the stamps is played as silence and delays what follows; a gap within the
    /// tolerance is rounding; a buffer stamped before what already played follows at once.
    @Test func pausesBecomeSilenceAndNothingIsDropped() throws {
        let samples = (1...40).map { Int16($0) }
        let ms: Int64 = 1_000_000  // 48 samples at 48 kHz
        let buffers: [LiveSinkTimeline.Buffer] = [
            .init(ptsNanoseconds: 1_000 * ms, samples: 10),
            .init(ptsNanoseconds: 1_000 * ms + 10 * ms / 48 + ms / 2, samples: 10),  // half a ms late: rounding
            .init(ptsNanoseconds: 1_002 * ms, samples: 10),  // 2 ms after its predecessor's start: 76 samples of pause
            .init(ptsNanoseconds: 1_000 * ms, samples: 10),  // stamped in the past: plays right after
        ]
        let pcm = try #require(LiveSinkTimeline.play(samples, buffers: buffers))
        #expect(Array(pcm.prefix(20)) == Array(samples.prefix(20)))
        #expect(pcm.count == 96 + 20)
        #expect(pcm[20..<96].allSatisfy { $0 == 0 })
        #expect(Array(pcm[96...]) == Array(samples[20...]))
        // Buffers that do not account for the file are refused.
        #expect(LiveSinkTimeline.play(Array(samples.prefix(39)), buffers: buffers) == nil)
    }
}
