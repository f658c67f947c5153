// SPDX-License-Identifier: Apache-2.0
/// # DSP
///
/// Pure-Swift signal processing that links no C library, so any target can use it without
/// pulling in speexdsp: a real FFT (`RealFFT`), pitch-period search (`PitchPeriodSearch`) and
/// time-stretching by one pitch period (`TimeStretcher`, used by the jitter buffer to
/// accelerate and decelerate playout). Everything allocates in `init` and nothing per call.
enum DSPModule {}
