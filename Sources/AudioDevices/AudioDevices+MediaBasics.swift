// SPDX-License-Identifier: Apache-2.0
// The clock and the direction are part of this module's API (stream statistics, timestamps,
// `StreamDirections.includes`): its users get them with it.
@_exported import MediaBasics
