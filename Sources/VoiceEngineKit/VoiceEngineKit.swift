// SPDX-License-Identifier: Apache-2.0
// VoiceEngineKit: the one module a softphone imports. It re-exports the product's libraries —
// the engine and the call core (MediaEngine, CallCore), devices (AudioDevices, with the clocks
// of MediaBasics), the control layers (AudioSession, Calls, CallDirectory, CallHistory,
// PushRegistry), signalling (SessionDescription, and CallNegotiation from it to the call's
// media), transport and media (Transport, SRTP, RTP, Opus and the other codecs in AudioCodecs, JitterBuffer, AudioProcessing) and the typed errno (SystemErrors) — and nothing of the
// testing targets. Named so that it does not collide with the `VoiceEngine` type.
@_exported import AudioCodecs
@_exported import AudioDevices
@_exported import AudioProcessing
@_exported import AudioSession
@_exported import CallDirectory
@_exported import CallQuality
@_exported import CallNegotiation
@_exported import CallHistory
@_exported import Calls
@_exported import JitterBuffer
@_exported import MediaEngine
@_exported import Opus
@_exported import PushRegistry
@_exported import RTP
@_exported import SRTP
@_exported import SessionDescription
@_exported import SystemErrors
@_exported import Transport
