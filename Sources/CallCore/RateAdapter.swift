// SPDX-License-Identifier: Apache-2.0
import AudioProcessing

/// Carries audio from one side's rate and block size to the other's: a resampler when the
/// rates differ (speexdsp, VoIP quality), then a FIFO from which whole blocks are taken.
/// Blocks of any length go in; the FIFO makes up the difference between a device period and
/// a pipeline frame. Allocation-free after `init`.
final class RateAdapter {
    /// Rate of what goes in, in Hz.
    let inputRate: Int
    /// Rate of what comes out, in Hz.
    let outputRate: Int
    private let resampler: Resampler?
    private let fifo: SampleFIFO

    /// An adapter from `inputRate` to `outputRate` holding up to `capacity` output samples;
    /// with `adjustable`, it resamples even between equal rates so `adjustRatio` can follow
    /// clock drift.
    init(inputRate: Int, outputRate: Int, capacity: Int, adjustable: Bool = false) throws(SpeexDSPError) {
        self.inputRate = inputRate
        self.outputRate = outputRate
        resampler = inputRate == outputRate && !adjustable ? nil : try Resampler(inputRate: inputRate, outputRate: outputRate, quality: .voip)
        fifo = SampleFIFO(capacity: capacity)
    }

    /// Output samples ready.
    var available: Int { fifo.count }

    /// Output samples dropped because more came in than was taken out.
    var overflowedSamples: Int { fifo.overflowedSamples }

    /// Adds `input` (converted to the output rate).
    func push(_ input: UnsafeBufferPointer<Int16>) {
        guard let resampler else {
            fifo.push(input)
            return
        }
        var remaining = input
        while !remaining.isEmpty {
            var space = fifo.spaceForWriting()
            if space.isEmpty {
                fifo.discard(fifo.count / 2)
                space = fifo.spaceForWriting()
            }
            let (consumed, written) = resampler.process(remaining, into: space)
            fifo.commit(written)
            guard consumed > 0 || written > 0 else { break }
            remaining = UnsafeBufferPointer(rebasing: remaining[consumed...])
        }
    }

    /// Takes exactly `output.count` samples; false (nothing taken) when fewer are ready.
    func pop(into output: UnsafeMutableBufferPointer<Int16>) -> Bool {
        fifo.pop(into: output)
    }

    /// Adjusts the conversion by `ppm` (clock drift); a no-op without resampling.
    func adjustRatio(ppm: Double) throws(SpeexDSPError) {
        try resampler?.adjustRatio(ppm: ppm)
    }
}
