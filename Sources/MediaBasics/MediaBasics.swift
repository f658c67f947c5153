// SPDX-License-Identifier: Apache-2.0
/// # MediaBasics
///
/// What every media layer shares and no layer owns: the clocks (`MonotonicClock` for pacing
/// and intervals, `WallClock` for the time of day), `AudioDirection`, and the codec table
/// (`AudioCodec`: RTP clock rate, static payload type, capabilities — facts signalling needs
/// without linking a codec library). Below both the call core and the device layer, so the
/// sans-I/O core names a direction or reads the clock without linking ALSA.
enum MediaBasicsModule {}
