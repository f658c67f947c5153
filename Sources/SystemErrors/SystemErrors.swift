// SPDX-License-Identifier: Apache-2.0
/// # SystemErrors
///
/// ``Errno``: a typed `errno` value with named constants for the codes the engine meets (ALSA's
/// xruns, suspends and unplugs, socket failures) and the system's text for it, as swift-system's
/// `Errno` (which cannot be fetched here) offers. Pure Swift over the C library's `errno.h`
/// constants and `strerror`; `AudioDevices` and `Transport` report their failures with it.
enum SystemErrorsModule {}
