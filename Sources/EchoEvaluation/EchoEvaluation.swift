// SPDX-License-Identifier: Apache-2.0
/// # EchoEvaluation
///
/// How well echo was cancelled in a whole recording: the one definition of ERLE and of
/// convergence time (`EchoMeasurement`) used by the tests, `benchmarks aec` and `voicecall aec
/// --erle`, and the one frame-by-frame run of an `EchoCanceller` over a recording
/// (`EchoCanceller.processRecording(microphone:farEnd:)`).
///
/// Offline only: both need the whole recording (the loudest frame, every later window), which
/// a call never has, and allocate freely. Pure Swift over `AudioProcessing`; a softphone links
/// it only if it evaluates recordings, as `voicecall` does.
enum EchoEvaluationModule {}
