// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
import MediaEngine
import SRTP

/// Two softphones, Alice and Bob, each a `CallMixer` with one `CallMedia`, joined by two
/// `SimulatedLink`s and run frame by frame on a virtual clock. What each microphone hears is
/// up to the test (speech, silence, and the echo of what that side played).
public final class CallLoop {
    /// One side: its mixer and call, and everything its loudspeaker played.
    public final class Side {
        /// This side's mixer (its loudspeaker and microphone).
        public let mixer: CallMixer
        /// This side's one call.
        public let call: CallMedia
        /// What the loudspeaker played, from the first frame on.
        public var played: [Int16] = []
        /// What the microphone heard, from the first frame on.
        public var captured: [Int16] = []

        init(mixer: CallMixer, call: CallMedia) {
            self.mixer = mixer
            self.call = call
        }
    }

    /// The side that calls.
    public let alice: Side
    /// The side that answers.
    public let bob: Side
    /// Alice → Bob.
    public let aliceToBob: SimulatedLink
    /// Bob → Alice.
    public let bobToAlice: SimulatedLink
    /// Samples in one frame.
    public let frameCount: Int
    /// One frame's duration in ms.
    public let frameMs: Double
    /// Frames run so far.
    public private(set) var tick = 0

    /// Calls with `configuration` (fresh SRTP keys each way unless `srtp` is false) and
    /// mixers running `processing`.
    public convenience init(configuration: MediaConfiguration = MediaConfiguration(), processing: ProcessingConfiguration = ProcessingConfiguration(),
         aliceToBob: SimulatedLink = SimulatedLink(trace: nil), bobToAlice: SimulatedLink = SimulatedLink(trace: nil),
         srtp: Bool = true) throws {
        let aliceKey = srtp ? SRTPKeyingMaterial.random(profile: configuration.srtpProfile) : nil
        let bobKey = srtp ? SRTPKeyingMaterial.random(profile: configuration.srtpProfile) : nil
        let alice = try CallMedia(configuration: configuration, sendingKey: aliceKey, receivingKey: bobKey, ssrc: 0xA11C_E000,
                                  rtcpSeed: 0xA11C_E000)
        let bob = try CallMedia(configuration: configuration, sendingKey: bobKey, receivingKey: aliceKey, ssrc: 0x0000_B0B0,
                                rtcpSeed: 0x0000_B0B0)
        try self.init(alice: alice, bob: bob, processing: processing, aliceToBob: aliceToBob, bobToAlice: bobToAlice)
    }

    /// Calls made elsewhere (from an offer/answer, say; both at one rate and frame duration),
    /// each in a mixer of its own running `processing`.
    public init(alice aliceCall: CallMedia, bob bobCall: CallMedia, processing: ProcessingConfiguration = ProcessingConfiguration(),
                aliceToBob: SimulatedLink = SimulatedLink(trace: nil), bobToAlice: SimulatedLink = SimulatedLink(trace: nil)) throws {
        let configuration = aliceCall.configuration
        var mixing = MixerConfiguration()
        mixing.sampleRate = configuration.sampleRate
        mixing.frameDurationMs = configuration.frameDurationMs
        mixing.deviceSampleRate = configuration.sampleRate
        // One clock for both sides and no device: nothing to drift, so no resampler either
        // (its filter delay would shift every frame count the tests check).
        mixing.compensatesDeviceDrift = false
        mixing.processing = processing
        func side(_ call: CallMedia) throws -> Side {
            let mixer = try CallMixer(configuration: mixing)
            try mixer.add(call)
            return Side(mixer: mixer, call: call)
        }
        alice = try side(aliceCall)
        bob = try side(bobCall)
        self.aliceToBob = aliceToBob
        self.bobToAlice = bobToAlice
        frameCount = configuration.samplesPerFrame
        frameMs = Double(configuration.frameDurationMs)
    }

    /// Runs `frames` frames. `aliceMicrophone` / `bobMicrophone` give what each microphone
    /// hears in a frame, from the frame index and that side (its played history included).
    public func run(frames: Int, aliceMicrophone: (Int, Side) -> [Int16], bobMicrophone: (Int, Side) -> [Int16]) {
        var frame = [Int16](repeating: 0, count: frameCount)
        for _ in 0..<frames {
            let now = Double(tick) * frameMs
            aliceToBob.deliver(upTo: now, to: bob.call)
            bobToAlice.deliver(upTo: now, to: alice.call)
            for side in [alice, bob] {
                frame.withUnsafeMutableBufferPointer { side.mixer.render(into: $0, nowMs: now) }
                side.played.append(contentsOf: frame)
                let heard = side === alice ? aliceMicrophone(tick, side) : bobMicrophone(tick, side)
                side.captured.append(contentsOf: heard)
                heard.withUnsafeBufferPointer { side.mixer.capture($0) }
            }
            alice.call.sendDatagrams(nowMs: now) { aliceToBob.send($0, frameIndex: tick, sendMs: now) }
            bob.call.sendDatagrams(nowMs: now) { bobToAlice.send($0, frameIndex: tick, sendMs: now) }
            tick += 1
        }
    }

    /// Frame `index` of `samples` (silence past its end).
    public static func frame(_ index: Int, of samples: [Int16], length: Int) -> [Int16] {
        let start = index * length
        return (start..<(start + length)).map { $0 < samples.count ? samples[$0] : 0 }
    }
}
