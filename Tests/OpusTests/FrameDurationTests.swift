// SPDX-License-Identifier: Apache-2.0
import Testing
import Opus

@Suite struct FrameDurationTests {
    @Test func sampleCounts() {
        #expect(OpusFrameDuration.ms2_5.sampleCount(atSampleRate: 8000) == 20)
        #expect(OpusFrameDuration.ms20.sampleCount(atSampleRate: 48000) == 960)
        #expect(OpusFrameDuration.ms60.sampleCount(atSampleRate: 12000) == 720)
        #expect(OpusFrameDuration.ms2_5.description == "2.5 ms")
        #expect(OpusFrameDuration.ms40.description == "40 ms")
    }

    @Test func fromSampleCount() {
        for rate in [8000, 12000, 16000, 24000, 48000] {
            for duration in OpusFrameDuration.allCases {
                #expect(OpusFrameDuration(sampleCount: duration.sampleCount(atSampleRate: rate), sampleRate: rate) == duration)
            }
        }
        #expect(OpusFrameDuration(sampleCount: 959, sampleRate: 48000) == nil)
        #expect(OpusFrameDuration(sampleCount: 1440, sampleRate: 48000) == nil)  // 30 ms
        #expect(OpusFrameDuration(sampleCount: 3840, sampleRate: 48000) == nil)  // 80 ms: libopus 1.3.1 accepts it, this API does not
        #expect(OpusFrameDuration(sampleCount: 0, sampleRate: 48000) == nil)
    }
}
