// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import Testing
import TestSupport

/// The Opus parameters of an SDP `a=fmtp` attribute (RFC 7587 §6.1): read as real peers
/// write them, refused with the parameter named when malformed, never trapping, and written
/// back.
@Suite struct OpusFormatParametersTests {
    @Test func readsEveryParameter() throws {
        let parameters = try OpusFormatParameters(parsing: """
            maxplaybackrate=16000;sprop-maxcapturerate=24000;maxaveragebitrate=20000;stereo=1;sprop-stereo=0;\
            cbr=1;useinbandfec=1;usedtx=0;ptime=40;minptime=10;maxptime=60
            """)
        #expect(parameters.maxPlaybackRate == 16_000)
        #expect(parameters.spropMaxCaptureRate == 24_000)
        #expect(parameters.maxAverageBitrate == 20_000)
        #expect(parameters.stereo == true)
        #expect(parameters.spropStereo == false)
        #expect(parameters.cbr == true)
        #expect(parameters.useInbandFEC == true)
        #expect(parameters.useDTX == false)
        #expect(parameters.ptimeMs == 40)
        #expect(parameters.minPtimeMs == 10)
        #expect(parameters.maxPtimeMs == 60)
        #expect(parameters.otherParameters.isEmpty)
    }

    @Test func absentParametersAreNil() throws {
        #expect(try OpusFormatParameters(parsing: "") == OpusFormatParameters())
        #expect(try OpusFormatParameters(parsing: " ; ;\r\n") == OpusFormatParameters())
        let webRTC = try OpusFormatParameters(parsing: "minptime=10;useinbandfec=1")
        #expect(webRTC.minPtimeMs == 10)
        #expect(webRTC.useInbandFEC == true)
        #expect(webRTC.useDTX == nil && webRTC.maxAverageBitrate == nil && webRTC.maxPlaybackRate == nil && webRTC.stereo == nil)
    }

    /// Spaces and tabs around separators, keys in any case, a trailing `;`, a line end.
    @Test func toleratesWhitespaceAndCase() throws {
        let parameters = try OpusFormatParameters(parsing: " MaxPlaybackRate = 8000 ;\tUSEINBANDFEC=1 ; usedtx =1;\r\n")
        #expect(parameters.maxPlaybackRate == 8_000)
        #expect(parameters.useInbandFEC == true)
        #expect(parameters.useDTX == true)
    }

    @Test func keepsUnknownParametersInOrder() throws {
        let parameters = try OpusFormatParameters(parsing: "x-Vendor=Foo Bar;useinbandfec=1;flag;x-vendor=2;x-empty=")
        #expect(parameters.useInbandFEC == true)
        #expect(parameters.otherParameters == [
            .init(name: "x-Vendor", value: "Foo Bar"), .init(name: "flag", value: nil),
            .init(name: "x-vendor", value: "2"), .init(name: "x-empty", value: ""),
        ])
        #expect(parameters.formatted == "useinbandfec=1;x-Vendor=Foo Bar;flag;x-vendor=2;x-empty=")
    }

    @Test func refusesMalformedValuesNamingTheParameter() {
        let cases: [(String, OpusFormatParametersError)] = [
            ("useinbandfec", .malformed(parameter: "useinbandfec", reason: "it has no value")),
            ("usedtx=", .malformed(parameter: "usedtx", reason: "it has no value")),
            ("stereo=2", .malformed(parameter: "stereo", reason: "'2' is not 0 or 1")),
            ("cbr=true", .malformed(parameter: "cbr", reason: "'true' is not 0 or 1")),
            ("sprop-stereo=01", .malformed(parameter: "sprop-stereo", reason: "'01' is not 0 or 1")),
            ("maxaveragebitrate=1e300", .malformed(parameter: "maxaveragebitrate", reason: "'1e300' is not a decimal integer")),
            ("maxaveragebitrate=-6000", .malformed(parameter: "maxaveragebitrate", reason: "'-6000' is not a decimal integer")),
            ("maxaveragebitrate=+6000", .malformed(parameter: "maxaveragebitrate", reason: "'+6000' is not a decimal integer")),
            ("maxplaybackrate=16 000", .malformed(parameter: "maxplaybackrate", reason: "'16 000' is not a decimal integer")),
            ("ptime=2.5", .malformed(parameter: "ptime", reason: "'2.5' is not a decimal integer")),
            ("maxptime=٦٠", .malformed(parameter: "maxptime", reason: "'٦٠' is not a decimal integer")),
            ("usedtx=1;USEDTX=1", .duplicate(parameter: "usedtx")),
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text)") { try OpusFormatParameters(parsing: text) }
        }
    }

    /// Every numeric parameter at and just beyond its range, and numbers no integer holds.
    @Test func refusesOutOfRangeNumbersWithoutTrapping() throws {
        let ranges: [(String, ClosedRange<Int>)] = [
            ("maxplaybackrate", 8_000...48_000), ("sprop-maxcapturerate", 8_000...48_000),
            ("maxaveragebitrate", 6_000...510_000), ("ptime", 1...120), ("minptime", 1...120), ("maxptime", 1...120),
        ]
        for (name, range) in ranges {
            _ = try OpusFormatParameters(parsing: "\(name)=\(range.lowerBound)")
            _ = try OpusFormatParameters(parsing: "\(name)=\(range.upperBound)")
            for value in ["\(range.lowerBound - 1)", "\(range.upperBound + 1)", "0", String(repeating: "9", count: 30),
                          "\(Int.max)", "18446744073709551616"] {
                #expect(throws: OpusFormatParametersError.outOfRange(parameter: name, value: value, range: range), "\(name)=\(value)") {
                    try OpusFormatParameters(parsing: "\(name)=\(value)")
                }
            }
        }
        // Leading zeros are still the number; a megabyte of digits is cut in the error.
        #expect(try OpusFormatParameters(parsing: "maxplaybackrate=000000000000000016000").maxPlaybackRate == 16_000)
        let huge = String(repeating: "7", count: 1_000_000)
        #expect(throws: OpusFormatParametersError.outOfRange(parameter: "maxaveragebitrate", value: String(repeating: "7", count: 40) + "…",
                                                             range: 6_000...510_000)) {
            try OpusFormatParameters(parsing: "maxaveragebitrate=\(huge)")
        }
    }

    @Test func errorsSayWhatFailed() {
        #expect(OpusFormatParametersError.outOfRange(parameter: "maxaveragebitrate", value: "600", range: 6_000...510_000).description
            == "a=fmtp: maxaveragebitrate=600 is outside 6000–510000")
        #expect(OpusFormatParametersError.duplicate(parameter: "cbr").description == "a=fmtp: cbr is given more than once")
        #expect(OpusFormatParametersError.malformed(parameter: "stereo", reason: "'2' is not 0 or 1").description
            == "a=fmtp: stereo: '2' is not 0 or 1")
    }

    @Test func writesBackWhatItRead() throws {
        var parameters = OpusFormatParameters()
        #expect(parameters.formatted == "")
        parameters.useInbandFEC = true
        parameters.maxPlaybackRate = 16_000
        parameters.useDTX = false
        parameters.otherParameters = [.init(name: "x-a", value: "1")]
        #expect(parameters.formatted == "maxplaybackrate=16000;useinbandfec=1;usedtx=0;x-a=1")
        let everything = try OpusFormatParameters(parsing: """
            usedtx=1; useinbandfec=0; cbr=0; sprop-stereo=1; stereo=0; maxaveragebitrate=32000; minptime=10; ptime=20;
            maxptime=120; sprop-maxcapturerate=16000; maxplaybackrate=12000; x-b
            """)
        #expect(everything.formatted == """
            maxplaybackrate=12000;sprop-maxcapturerate=16000;maxptime=120;ptime=20;minptime=10;maxaveragebitrate=32000;\
            stereo=0;sprop-stereo=1;cbr=0;useinbandfec=0;usedtx=1;x-b
            """)
        #expect(try OpusFormatParameters(parsing: everything.formatted) == everything)
    }

    /// Seeded garbage made of the characters fmtp lines are made of: every input either
    /// parses — and then round-trips through `formatted` — or throws; none traps.
    @Test func randomInputNeverTraps() throws {
        var generator = SeededGenerator(seed: 7)
        let alphabet = Array("=; \t0123456789-+.emaxplybckrtusdinfcobpvEX٦\u{0}\r\n")
        let keys = ["maxplaybackrate", "maxaveragebitrate", "useinbandfec", "usedtx", "stereo", "ptime", "maxptime", "cbr"]
        var parsed = 0
        for _ in 0..<5_000 {
            var text = ""
            for _ in 0..<Int(generator.next() % 6) {
                text += generator.next() % 2 == 0 ? keys[Int(generator.next() % UInt64(keys.count))] : ""
                for _ in 0..<Int(generator.next() % 12) { text.append(alphabet[Int(generator.next() % UInt64(alphabet.count))]) }
            }
            guard let parameters = try? OpusFormatParameters(parsing: text) else { continue }
            parsed += 1
            #expect(try OpusFormatParameters(parsing: parameters.formatted) == parameters, "\(text.debugDescription)")
        }
        #expect(parsed > 100)
    }
}
