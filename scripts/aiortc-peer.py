#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A command-line WebRTC audio peer (aiortc: ICE, DTLS-SRTP, Opus), the outside peer of the
interop tests. No browser, no signalling server: session descriptions go through files.

Run it with the python of scripts/aiortc-venv:

  py=$(scripts/aiortc-venv)
  $py scripts/aiortc-peer.py offer  --loopback --play a.wav --record got-a.wav \\
      --offer-out /tmp/x/offer.sdp --answer-in /tmp/x/answer.sdp --seconds 5
  $py scripts/aiortc-peer.py answer --loopback --play b.wav --record got-b.wav \\
      --offer-in /tmp/x/offer.sdp --answer-out /tmp/x/answer.sdp --seconds 5

offer:  one audio transceiver (sendrecv, Opus only), gathers every candidate first (no trickle:
        the SDP carries them and a=end-of-candidates), writes the offer to --offer-out (a temporary
        file renamed into place, so a reader never sees half of it), polls --answer-in until it
        exists and parses ("-": standard input, read to its end or to an empty line), applies it.
answer: polls --offer-in, answers it (Opus only) and writes --answer-out the same way.
Both then wait for the connection (ICE, then DTLS) and run for --seconds once it is up, sending
--play (a 16-bit PCM WAV, converted to 48 kHz mono if it is not; paced in real time, silence after
its end unless --loop; silence without --play) and recording what arrives to --record (WAV 48 kHz
mono 16-bit; a gap in the RTP timestamps is written as silence, so the recording keeps the
sender's timeline from its first packet on). "-" as an output path writes the SDP to standard
output instead, followed by an empty line, before the JSON line.

Standard output, last line: one JSON object saying what happened (states reached, seconds
connected, packets and bytes from getStats(), the negotiated codec, both fingerprints, the
selected candidate pair, ICE and DTLS roles, the SRTP profile, the recording's length and level).
Standard error: timestamped state changes (signalling, gathering, ICE, DTLS, connection, the
selected pair); with --verbose, aiortc's and aioice's own debug logs as well.
Exit status: 0 when the connection came up and ran; 1 when ICE or DTLS failed, no connection came
within --timeout seconds (counted from the start, waiting for the remote SDP included), or the
connection failed while running; the last line on standard error then says why in one line;
2 for bad arguments or an unreadable WAV.

ICE options. aiortc uses a public STUN server when given no ICE servers at all: this peer always
passes its own list (empty by default), so it never talks to anything it was not told to.
  --stun HOST:PORT                          a STUN server (server-reflexive candidates)
  --turn turn:HOST:PORT?transport=udp --turn-user U --turn-password P
                                            a TURN server (a relayed candidate; aioice takes one
                                            STUN and one TURN server; turn: with udp or tcp,
                                            turns: with tcp)
  --relay-only                              RTCConfiguration(iceTransportPolicy=RELAY): aiortc 1.16
                                            gathers no host or server-reflexive candidate then,
                                            only the relayed one (whose related address it hides
                                            as 0.0.0.0 9), and ignores mDNS remote candidates
  --loopback                                host candidates on 127.0.0.1 only (= --host-address
                                            127.0.0.1). aioice gathers on every interface's
                                            address but 127.0.0.1 and ::1 (ifaddr), with no
                                            option to choose: this peer replaces
                                            aioice.ice.get_host_addresses, the one function it
                                            asks, by one returning the given addresses
  --host-address ADDR                       host candidates on ADDR only (repeatable)

TURN trial (coturn 4.6.1 from Debian 12, `apt-get install coturn`), the command line that worked
with both peers --relay-only through it (loopback peers must be allowed, coturn refuses to relay to
127.0.0.0/8 without --allow-loopback-peers):

  turnserver -n --listening-ip=127.0.0.1 --relay-ip=127.0.0.1 --listening-port=3478 \\
      --min-port=49160 --max-port=49200 --lt-cred-mech --user=voiceengine:secret \\
      --realm=voiceengine.test --fingerprint --no-tls --no-dtls --no-cli \\
      --allow-loopback-peers --no-stdout-log --log-file=/tmp/turn/turnserver.log --simple-log \\
      --pidfile=/tmp/turn/turnserver.pid --userdb=/tmp/turn/turndb

  then each peer with: --relay-only --turn 'turn:127.0.0.1:3478?transport=udp'
      --turn-user voiceengine --turn-password secret
"""

from __future__ import annotations

import argparse
import array
import asyncio
import datetime
import fractions
import json
import logging
import math
import os
import sys
import tempfile
import threading
import time
import wave

import aioice.ice
import av
from aiortc import (
    MediaStreamTrack,
    RTCConfiguration,
    RTCIceServer,
    RTCPeerConnection,
    RTCRtpSender,
    RTCSessionDescription,
)
from aiortc import sdp as aiortc_sdp
from aiortc.mediastreams import MediaStreamError
from aiortc.rtcconfiguration import RTCIceTransportPolicy

SAMPLE_RATE = 48000
FRAME_SAMPLES = 960  # 20 ms, what aiortc's Opus encoder packs
MAX_GAP_SAMPLES = 10 * SAMPLE_RATE  # a longer timestamp jump is a new timeline, not a gap

started = time.monotonic()
label = "peer"


def log(message: str) -> None:
    now = datetime.datetime.now().strftime("%H:%M:%S.%f")[:-3]
    print(f"{now} +{time.monotonic() - started:7.3f}s aiortc-peer[{label}] {message}",
          file=sys.stderr, flush=True)


class PeerFailure(Exception):
    """Ends the run with exit status 1 and this one-line reason."""


# --- audio in ---------------------------------------------------------------------------------

def load_wav_48k_mono(path: str) -> bytes:
    """16-bit PCM samples of a WAV file as 48 kHz mono s16 bytes (converted with FFmpeg's
    resampler when the file is another rate or has more channels)."""
    try:
        with wave.open(path, "rb") as wav:
            channels, width, rate = wav.getnchannels(), wav.getsampwidth(), wav.getframerate()
            pcm = wav.readframes(wav.getnframes())
    except (OSError, wave.Error, EOFError) as error:
        raise ValueError(f"cannot read {path}: {error}") from error
    if width != 2:
        raise ValueError(f"{path}: {8 * width}-bit samples, only 16-bit PCM is read")
    if rate == SAMPLE_RATE and channels == 1:
        return pcm
    layout = {1: "mono", 2: "stereo"}.get(channels)
    if layout is None:
        raise ValueError(f"{path}: {channels} channels, only mono or stereo is read")
    frame = av.AudioFrame(format="s16", layout=layout, samples=len(pcm) // (2 * channels))
    frame.planes[0].update(pcm)
    frame.sample_rate = rate
    frame.pts = 0
    frame.time_base = fractions.Fraction(1, rate)
    resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
    out = bytearray()
    for converted in resampler.resample(frame) + resampler.resample(None):
        out += bytes(converted.planes[0])[: converted.samples * 2]
    log(f"play: {path} is {rate} Hz, {channels} channel(s): converted to 48 kHz mono")
    return bytes(out)


class WavTrack(MediaStreamTrack):
    """Plays 48 kHz mono s16 samples in 20 ms frames, paced by the clock from the first frame
    the sender asks for; silence after the end (or the samples again with loop)."""

    kind = "audio"

    def __init__(self, pcm: bytes, loop: bool) -> None:
        super().__init__()
        self._pcm = pcm
        self._loop = loop and len(pcm) > 0
        self._position = 0
        self._pts = 0
        self._start: float | None = None
        self.frames_from_file = 0

    async def recv(self) -> av.AudioFrame:
        if self.readyState != "live":
            raise MediaStreamError
        if self._start is None:
            self._start = time.monotonic()
        else:
            self._pts += FRAME_SAMPLES
            wait = self._start + self._pts / SAMPLE_RATE - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
        size = FRAME_SAMPLES * 2
        chunk = self._pcm[self._position : self._position + size]
        self._position += len(chunk)
        if chunk:
            self.frames_from_file += 1
        if len(chunk) < size and self._loop:
            self._position = size - len(chunk)
            chunk += self._pcm[: self._position]
        chunk += bytes(size - len(chunk))
        # Stereo with both channels equal, the layout aiortc's Opus encoder takes as is: a mono
        # frame would go through FFmpeg's upmix, which puts the centre 3 dB down in each channel.
        mono = array.array("h", chunk)
        stereo = array.array("h", bytes(4 * FRAME_SAMPLES))
        stereo[0::2] = mono
        stereo[1::2] = mono
        frame = av.AudioFrame(format="s16", layout="stereo", samples=FRAME_SAMPLES)
        frame.planes[0].update(stereo.tobytes())
        frame.pts = self._pts
        frame.sample_rate = SAMPLE_RATE
        frame.time_base = fractions.Fraction(1, SAMPLE_RATE)
        return frame


# --- audio out --------------------------------------------------------------------------------

class Recorder:
    """Writes what a remote track delivers to a WAV file, 48 kHz mono s16, filling timestamp
    gaps (lost or never-sent packets) with silence; keeps the sum of squares for the level."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.samples = 0
        self.frames = 0
        self.gap_samples = 0
        self._sum_squares = 0.0
        self._wav: wave.Wave_write | None = None
        self._task: asyncio.Task | None = None
        self._next_pts: int | None = None

    def start(self, track: MediaStreamTrack) -> None:
        if self.path is not None:
            self._wav = wave.open(self.path, "wb")
            self._wav.setnchannels(1)
            self._wav.setsampwidth(2)
            self._wav.setframerate(SAMPLE_RATE)
        self._task = asyncio.ensure_future(self._run(track))

    async def _run(self, track: MediaStreamTrack) -> None:
        resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            if frame.pts is not None and frame.sample_rate == SAMPLE_RATE:
                if self._next_pts is not None:
                    gap = frame.pts - self._next_pts
                    if 0 < gap <= MAX_GAP_SAMPLES:
                        self._write(bytes(2 * gap))
                        self.gap_samples += gap
                self._next_pts = frame.pts + frame.samples
            self.frames += 1
            if frame.format.name == "s16" and frame.layout.name == "stereo":
                # aiortc's Opus decoder gives packed s16 stereo: the mean of the channels (a mono
                # stream decodes to two equal ones) rather than FFmpeg's downmix, 3 dB down.
                both = array.array("h", bytes(frame.planes[0])[: frame.samples * 4])
                self._write(array.array("h", [(left + right) >> 1 for left, right
                                              in zip(both[0::2], both[1::2])]).tobytes())
            else:
                for mono in resampler.resample(frame):
                    self._write(bytes(mono.planes[0])[: mono.samples * 2])

    def _write(self, pcm: bytes) -> None:
        samples = array.array("h", pcm)  # FFmpeg's s16 and WAV's samples: little-endian here
        self._sum_squares += float(sum(s * s for s in samples))
        self.samples += len(samples)
        if self._wav is not None:
            self._wav.writeframes(pcm)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
        if self._wav is not None:
            self._wav.close()
            self._wav = None

    def summary(self) -> dict:
        rms = math.sqrt(self._sum_squares / self.samples) / 32768 if self.samples else 0.0
        return {
            "path": self.path,
            "frames": self.frames,
            "seconds": round(self.samples / SAMPLE_RATE, 3),
            "gapSeconds": round(self.gap_samples / SAMPLE_RATE, 3),
            "rmsDbfs": round(20 * math.log10(rms), 1) if rms > 0 else None,
        }


# --- signalling through files -----------------------------------------------------------------

def write_sdp(path: str, text: str) -> None:
    if path == "-":
        # An empty line ends it, so a reader of a pipe that stays open knows where it stops.
        sys.stdout.write((text if text.endswith("\n") else text + "\n") + "\n")
        sys.stdout.flush()
        return
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".sdp-", dir=directory)
    try:
        with os.fdopen(handle, "w") as file:
            file.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes it 0600
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


def parses(text: str) -> bool:
    try:
        description = aiortc_sdp.SessionDescription.parse(text)
    except Exception:  # noqa: BLE001 - any parse failure means "not yet"
        return False
    return any(m.kind == "audio" for m in description.media)


def read_stdin_sdp() -> str:
    lines = []
    for line in sys.stdin:
        if not line.strip() and lines:
            break
        if line.strip():
            lines.append(line.rstrip("\r\n"))
    return "\r\n".join(lines) + "\r\n"


async def read_sdp(path: str, what: str, deadline: float, timeout: float) -> str:
    if path == "-":
        log(f"waiting for the {what} on standard input")
        # A daemon thread, not the loop's executor: asyncio.run waits for its executor's threads
        # at the end, and one blocked on a silent standard input would keep the process alive.
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()

        def reader() -> None:
            try:
                text = read_stdin_sdp()
                outcome = lambda: future.done() or future.set_result(text)  # noqa: E731
            except Exception as error:  # noqa: BLE001 - handed to the waiting coroutine
                failure = error  # `error` is unbound after the except clause
                outcome = lambda: future.done() or future.set_exception(failure)  # noqa: E731
            try:
                loop.call_soon_threadsafe(outcome)
            except RuntimeError:  # the loop has ended meanwhile
                pass

        threading.Thread(target=reader, name="stdin-sdp", daemon=True).start()
        try:
            text = await asyncio.wait_for(future, timeout=max(0.0, deadline - time.monotonic()))
        except asyncio.TimeoutError:
            raise PeerFailure(f"no {what} on standard input within {timeout:g} s") from None
        if not parses(text):
            raise PeerFailure(f"the {what} on standard input does not parse as SDP with audio")
        return text
    log(f"waiting for the {what} at {path}")
    while True:
        try:
            with open(path) as file:
                text = file.read()
            if parses(text):
                return text
        except FileNotFoundError:
            pass
        if time.monotonic() >= deadline:
            raise PeerFailure(f"no {what} that parses at {path} within {timeout:g} s")
        await asyncio.sleep(0.05)


# --- the peer ---------------------------------------------------------------------------------

def ice_servers(args: argparse.Namespace) -> list[RTCIceServer]:
    servers = []
    if args.stun:
        servers.append(RTCIceServer(urls=f"stun:{args.stun}"))
    if args.turn:
        servers.append(RTCIceServer(urls=args.turn, username=args.turn_user,
                                    credential=args.turn_password))
    return servers


def restrict_host_addresses(addresses: list[str]) -> None:
    """aioice gathers host candidates on what aioice.ice.get_host_addresses returns (every
    interface's address but loopback); make it return these instead."""

    def chosen(use_ipv4: bool, use_ipv6: bool) -> list[str]:
        return [a for a in addresses if (":" in a and use_ipv6) or (":" not in a and use_ipv4)]

    aioice.ice.get_host_addresses = chosen


class DtlsLog(logging.Handler):
    """Keeps aiortc's own words on the DTLS handshake (the negotiated SRTP profile, why it
    failed), which it gives only in debug logs."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.srtp_profile: str | None = None
        self.failure: str | None = None

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "DTLS handshake negotiated" in message:
            self.srtp_profile = message.rsplit(" ", 1)[-1]
        elif "DTLS handshake failed" in message:
            self.failure = message.split("x DTLS handshake failed", 1)[-1].strip(" ()")


def candidate_text(candidate) -> str:
    return f"{candidate.type} {candidate.host}:{candidate.port}/{candidate.transport}"


def fingerprints_in(sdp_text: str) -> list[str]:
    return sorted({line.split(":", 1)[1].strip() for line in sdp_text.splitlines()
                   if line.startswith("a=fingerprint:")})


async def stats_of(transceiver) -> dict:
    # Zeros until aiortc has a stream to report (no inbound-rtp before the first packet).
    figures: dict = {"packetsSent": 0, "bytesSent": 0, "packetsReceived": 0, "packetsLost": 0}
    for report in (await transceiver.sender.getStats(), await transceiver.receiver.getStats()):
        for stats in report.values():
            if stats.type == "outbound-rtp":
                figures["packetsSent"] = stats.packetsSent
                figures["bytesSent"] = stats.bytesSent
            elif stats.type == "inbound-rtp":
                figures["packetsReceived"] = stats.packetsReceived
                figures["packetsLost"] = stats.packetsLost
                figures["jitter"] = stats.jitter
            elif stats.type == "remote-inbound-rtp":
                figures["remoteFractionLost"] = stats.fractionLost
                figures["roundTripTime"] = stats.roundTripTime
            elif stats.type == "transport":
                figures["transport"] = {
                    "packetsSent": stats.packetsSent,
                    "bytesSent": stats.bytesSent,
                    "packetsReceived": stats.packetsReceived,
                    "bytesReceived": stats.bytesReceived,
                }
    return figures


async def run(args: argparse.Namespace) -> tuple[int, dict]:
    deadline = started + args.timeout
    if args.loopback:
        args.host_address = ["127.0.0.1"] + [a for a in args.host_address if a != "127.0.0.1"]
    if args.host_address:
        restrict_host_addresses(args.host_address)
        log(f"host candidates on {', '.join(args.host_address)} only")

    try:
        pcm = load_wav_48k_mono(args.play) if args.play else b""
    except ValueError as error:
        print(f"aiortc-peer: {error}", file=sys.stderr)
        return 2, {}
    track = WavTrack(pcm, args.loop)
    if args.play:
        log(f"play: {args.play}, {len(pcm) / 2 / SAMPLE_RATE:.2f} s")
    recorder = Recorder(args.record)

    dtls_log = DtlsLog()
    dtls_logger = logging.getLogger("aiortc.rtcdtlstransport")
    dtls_logger.addHandler(dtls_log)
    if dtls_logger.getEffectiveLevel() > logging.DEBUG:
        dtls_logger.setLevel(logging.DEBUG)

    policy = RTCIceTransportPolicy.RELAY if args.relay_only else RTCIceTransportPolicy.ALL
    pc = RTCPeerConnection(RTCConfiguration(iceServers=ice_servers(args),
                                            iceTransportPolicy=policy))
    result: dict = {"mode": args.mode, "connectionState": "new"}
    connected = asyncio.Event()
    ended = asyncio.Event()
    connected_at: float | None = None
    ended_at: float | None = None
    closing = False  # our own close at the end: its "closed" is not a state the run reached
    dtls_transport = None

    @pc.on("signalingstatechange")
    def _() -> None:
        log(f"signaling {pc.signalingState}")

    @pc.on("icegatheringstatechange")
    def _() -> None:
        log(f"ICE gathering {pc.iceGatheringState}")

    @pc.on("iceconnectionstatechange")
    def _() -> None:
        log(f"ICE {pc.iceConnectionState}")
        if pc.iceConnectionState == "failed":
            ended.set()

    @pc.on("connectionstatechange")
    def _() -> None:
        nonlocal connected_at, ended_at
        state = pc.connectionState
        log(f"connection {state}")
        if closing:
            return
        if state == "connected" and connected_at is None:
            connected_at = time.monotonic()
            result["connectionState"] = "connected"
            connected.set()
        elif state in ("failed", "closed"):
            if ended_at is None:
                ended_at = time.monotonic()
            if result["connectionState"] != "connected":
                result["connectionState"] = state
            ended.set()
        elif result["connectionState"] != "connected":
            result["connectionState"] = state

    @pc.on("track")
    def _(remote_track: MediaStreamTrack) -> None:
        log(f"remote {remote_track.kind} track: recording to {args.record or 'nowhere (level only)'}")
        recorder.start(remote_track)

    transceiver = pc.addTransceiver(track, direction="sendrecv")
    opus = [c for c in RTCRtpSender.getCapabilities("audio").codecs
            if c.mimeType.lower() == "audio/opus"]
    transceiver.setCodecPreferences(opus)

    def watch_transports() -> None:
        nonlocal dtls_transport
        dtls_transport = transceiver.sender.transport
        ice_transport = dtls_transport.transport

        @dtls_transport.on("statechange")
        def _() -> None:
            log(f"DTLS {dtls_transport.state} (role {dtls_transport._role})")
            if dtls_transport.state == "connected":
                pair = ice_transport._connection._nominated.get(1)
                if pair is not None:
                    log(f"selected pair: local {candidate_text(pair.local_candidate)}"
                        f" <-> remote {candidate_text(pair.remote_candidate)}")

        @ice_transport.on("statechange")
        def _() -> None:
            log(f"ICE transport {ice_transport.state} (role {ice_transport.role})")

    exit_status = 0
    snapshot: dict = {}
    try:
        if args.mode == "offer":
            watch_transports()
            await pc.setLocalDescription(await pc.createOffer())
            for candidate in transceiver.sender.transport.transport.iceGatherer.getLocalCandidates():
                log(f"local candidate {candidate.type} {candidate.ip}:{candidate.port}")
            write_sdp(args.offer_out, pc.localDescription.sdp)
            log(f"offer written to {args.offer_out}")
            answer = await read_sdp(args.answer_in, "answer", deadline, args.timeout)
            await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
            remote_sdp = answer
        else:
            offer = await read_sdp(args.offer_in, "offer", deadline, args.timeout)
            await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
            watch_transports()
            await pc.setLocalDescription(await pc.createAnswer())
            for candidate in transceiver.sender.transport.transport.iceGatherer.getLocalCandidates():
                log(f"local candidate {candidate.type} {candidate.ip}:{candidate.port}")
            write_sdp(args.answer_out, pc.localDescription.sdp)
            log(f"answer written to {args.answer_out}")
            remote_sdp = offer
        for line in remote_sdp.splitlines():
            if line.startswith("a=candidate:"):
                log(f"remote candidate {line[len('a=candidate:'):].strip()}")
        result["localFingerprints"] = fingerprints_in(pc.localDescription.sdp)
        result["remoteFingerprints"] = fingerprints_in(remote_sdp)
        result["remoteIceLite"] = "a=ice-lite" in remote_sdp
        codec = transceiver._codecs[0] if transceiver._codecs else None
        if codec is None or codec.mimeType.lower() != "audio/opus":
            raise PeerFailure("no Opus in the negotiated codecs")
        result["codec"] = {"mimeType": codec.mimeType, "clockRate": codec.clockRate,
                           "channels": codec.channels, "payloadType": codec.payloadType,
                           "parameters": dict(codec.parameters)}

        # Wait for the connection.
        waiters = [asyncio.ensure_future(connected.wait()), asyncio.ensure_future(ended.wait())]
        await asyncio.wait(waiters, timeout=max(0.0, deadline - time.monotonic()),
                           return_when=asyncio.FIRST_COMPLETED)
        for waiter in waiters:
            waiter.cancel()
        ice_state = pc.iceConnectionState
        dtls_state = dtls_transport.state if dtls_transport else "new"
        if not connected.is_set():
            if ice_state == "failed":
                raise PeerFailure("ICE failed: no candidate pair succeeded")
            if dtls_state == "failed":
                raise PeerFailure(f"DTLS failed: {dtls_log.failure or 'handshake failed'}")
            if ended.is_set():
                raise PeerFailure(f"connection {pc.connectionState} before it came up")
            raise PeerFailure(f"no connection within {args.timeout:g} s "
                              f"(ICE {ice_state}, DTLS {dtls_state})")

        ice_transport = dtls_transport.transport
        pair = ice_transport._connection._nominated.get(1)
        if pair is not None:
            result["selectedPair"] = {
                "local": {"type": pair.local_candidate.type, "address": pair.local_candidate.host,
                          "port": pair.local_candidate.port},
                "remote": {"type": pair.remote_candidate.type,
                           "address": pair.remote_candidate.host,
                           "port": pair.remote_candidate.port},
            }
        result["iceRole"] = ice_transport.role
        result["dtlsRole"] = dtls_transport._role
        result["srtpProfile"] = dtls_log.srtp_profile
        log(f"connected: ICE {ice_transport.role}, DTLS {dtls_transport._role}, "
            f"SRTP {dtls_log.srtp_profile}, codec {codec.mimeType}/{codec.clockRate}/"
            f"{codec.channels} pt {codec.payloadType}; running {args.seconds:g} s")

        # Run, keeping a recent snapshot of the stats in case the remote closes first.
        run_until = time.monotonic() + args.seconds
        while not ended.is_set() and time.monotonic() < run_until:
            snapshot = await stats_of(transceiver)
            try:
                await asyncio.wait_for(ended.wait(), timeout=min(1.0, run_until - time.monotonic()))
            except asyncio.TimeoutError:
                pass
        if pc.connectionState == "failed":
            raise PeerFailure(f"connection failed after {time.monotonic() - connected_at:.1f} s "
                              f"(ICE {pc.iceConnectionState}, DTLS {dtls_transport.state})")
        result["endedBy"] = "remote" if ended.is_set() else "local"
        if ended.is_set():
            log("the remote closed the connection first")
        try:
            snapshot = await stats_of(transceiver)
        except Exception as error:  # noqa: BLE001 - keep the last snapshot then
            log(f"getStats after the end failed ({error}); reporting the last snapshot")
    except PeerFailure as failure:
        result["reason"] = str(failure)
        exit_status = 1
    finally:
        end = ended_at if ended_at is not None else time.monotonic()
        result["secondsConnected"] = round(end - connected_at, 3) if connected_at else 0.0
        closing = True
        await recorder.stop()
        track.stop()
        await pc.close()
        result.update(snapshot)
        result["framesPlayedFromFile"] = track.frames_from_file
        result["recording"] = recorder.summary()
        result["iceConnectionState"] = pc.iceConnectionState
    return exit_status, result


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="aiortc-peer.py",
        description="A WebRTC audio peer (aiortc) for interop tests; SDP through files.")
    parser.add_argument("mode", choices=["offer", "answer"])
    parser.add_argument("--play", metavar="WAV", help="16-bit PCM WAV to send (48 kHz mono best)")
    parser.add_argument("--loop", action="store_true", help="play the WAV again after its end")
    parser.add_argument("--record", metavar="WAV", help="write what arrives here (48 kHz mono)")
    parser.add_argument("--offer-out", metavar="PATH", help="offer: where to write the offer")
    parser.add_argument("--answer-in", metavar="PATH", help="offer: where the answer will be")
    parser.add_argument("--offer-in", metavar="PATH", help="answer: where the offer will be")
    parser.add_argument("--answer-out", metavar="PATH", help="answer: where to write the answer")
    parser.add_argument("--seconds", type=float, default=5.0,
                        help="how long to run once connected (default 5)")
    parser.add_argument("--timeout", type=float, default=20.0,
                        help="seconds from start to a connection, remote SDP included (default 20)")
    parser.add_argument("--stun", metavar="HOST:PORT")
    parser.add_argument("--turn", metavar="URL", help="turn:HOST:PORT?transport=udp")
    parser.add_argument("--turn-user", metavar="USER")
    parser.add_argument("--turn-password", metavar="PASSWORD")
    parser.add_argument("--relay-only", action="store_true",
                        help="iceTransportPolicy relay: only the TURN relayed candidate")
    parser.add_argument("--loopback", action="store_true",
                        help="host candidates on 127.0.0.1 only")
    parser.add_argument("--host-address", action="append", default=[], metavar="ADDR",
                        help="host candidates on ADDR only (repeatable)")
    parser.add_argument("--label", help="name in the log lines (default: the mode)")
    parser.add_argument("--verbose", action="store_true",
                        help="aiortc's and aioice's debug logs on standard error")
    args = parser.parse_args(argv)
    if args.mode == "offer" and not (args.offer_out and args.answer_in):
        parser.error("offer needs --offer-out and --answer-in")
    if args.mode == "answer" and not (args.offer_in and args.answer_out):
        parser.error("answer needs --offer-in and --answer-out")
    if args.turn and not args.turn.startswith(("turn:", "turns:")):
        parser.error("--turn takes a turn: or turns: URL")
    if args.relay_only and not args.turn:
        parser.error("--relay-only needs --turn")
    return args


def main(argv: list[str]) -> int:
    global label
    args = parse_arguments(argv)
    label = args.label or args.mode
    if args.verbose:
        logging.basicConfig(level=logging.DEBUG, stream=sys.stderr,
                            format="%(asctime)s %(name)s %(message)s")
    status, result = asyncio.run(run(args))
    if status == 2:
        return 2
    print(json.dumps(result, sort_keys=True), flush=True)
    if status != 0:
        print(f"aiortc-peer[{label}]: {result['reason']}", file=sys.stderr, flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
