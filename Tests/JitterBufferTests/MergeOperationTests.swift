import Testing
@testable import JitterBuffer

@Suite struct MergeOperationTests {
    /// The first 2.5 ms (120 samples at 48 kHz) fade linearly from the concealed tail into the
    /// decoded frame; the rest of the frame is as decoded.
    @Test func crossfadesFromTheConcealmentTail() {
        let queue = OperationFixture.queue()
        let tail = [Int16](repeating: 1_200, count: 120)
        var frame = [Int16](repeating: 0, count: 960)
        frame[500] = 77
        var state = PlayoutState()
        state.expandedSamples = 960
        state.hasMergeTail = true
        state.lastKind = .expand
        tail.withUnsafeBufferPointer { tail in
            frame.withUnsafeMutableBufferPointer {
                MergeOperation(queue: queue).run($0, from: tail, packet: OperationFixture.packet(), state: &state)
            }
        }
        let (samples, emission) = OperationFixture.drain(queue)
        #expect(samples.count == 960)
        #expect(samples[0] == 1_200)  // all tail
        #expect(samples[60] == 600)  // halfway
        #expect(samples[119] == 10)  // 1 200 × 1/120
        #expect(samples[120...].allSatisfy { $0 == 0 || $0 == 77 } && samples[500] == 77)
        #expect(emission.started?.kind == .merge)
        #expect(emission.firstStartedSequence == 100)
        #expect(state.expandedSamples == 0 && !state.hasMergeTail && state.lastKind == .merge)
    }

    @Test func aFrameShorterThanTheTailIsCrossfadedWhole() {
        let queue = OperationFixture.queue()
        let tail = [Int16](repeating: 1_000, count: 120)
        var frame = [Int16](repeating: 0, count: 40)
        var state = PlayoutState()
        tail.withUnsafeBufferPointer { tail in
            frame.withUnsafeMutableBufferPointer {
                MergeOperation(queue: queue).run($0, from: tail, packet: OperationFixture.packet(), state: &state)
            }
        }
        let samples = OperationFixture.drain(queue).samples
        #expect(samples.count == 40)
        #expect(samples[0] == 1_000 && samples[20] == 500 && samples[39] == 25)
    }
}
