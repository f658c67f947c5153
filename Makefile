# SPDX-License-Identifier: Apache-2.0
# The two entry points of the README. Both install what they need first.
.PHONY: demo test deps test-deps benchmarks quality fixtures fuzz docs test-asan test-tsan

deps:
	scripts/install-deps

test-deps:
	scripts/install-deps --test --aiortc --nat
	scripts/aiortc-venv >/dev/null

## A demo call: two softphones through the CallKit-style flow, SRTP/Opus over UDP on 127.0.0.1
## through the network simulator (G.1050 class C, bursty loss). make demo ARGS="--fast --plot out/plots"
demo: deps
	swift run voicecall demo $(ARGS)

## The suites that run in real time (engines on real threads, voicecall processes, GStreamer,
## the real devices): the second stage of `make test` runs them one test at a time, so that
## they never make each other late, at nice -10 where permitted (a root CI is): beside a
## release build, the test process's normal-priority threads (libpulse's client thread behind
## the ALSA "pulse" PCM, the engine's network thread) starved, and a call on the PulseAudio
## loopback underran (echo 5-23 dB down instead of 30; 30+ at nice -10, same load). The first
## stage runs everything else in parallel.
REALTIME_SUITES = VoiceEngineTests|DTLSCallTests|ICECallTests|WebRTCInteropTests|LatencyCommandTests|RelayCommandTests|DeviceBackendTests|RingtoneBackendTests|CallEngineTests|EmbeddingExampleTests|RealCallTests|HostileInputTests|KeyAndRecordingTests|GStreamerInteropTests|RealALSATests|VoiceEngineRealDeviceTests|AudioSessionRealDeviceTests|VoiceCallDTLSTests|VoiceCallDTLSDeviceTests|DemoCommandTests/realTimeDemo|VoiceCallICETests|VoiceCallICESendReceiveTests|VoiceCallWebRTCTests|VoiceCallNATTests|ICENetworkChangeTests

## At most this many test cases at once in the parallel stage. Swift Testing starts every test
## at once by default and all of them share the cooperative pool (one thread per core): a test
## whose time limit had started then waited behind hundreds of others, and beside a release
## build fifty one-minute limits of quick tests expired at one instant. With a bound the queue
## stays short (and the stage ran in 226 s instead of 445 s beside a release build); tests that
## compute or block for seconds run off the pool (TestSupport's `offCooperativePool`).
PARALLEL_TEST_CASES = 8

## The whole test suite, with a PulseAudio null-sink loopback for the real-ALSA tests
## (started before, stopped after, also on failure; PULSE_SERVER exported to the tests):
## the parallel stage, then the real-time stage (serialised). Both stages run even when the
## first fails; the exit status is the first failure's.
## make test SWIFT_TEST_FLAGS="--scratch-path DIR" builds elsewhere.
test: test-deps
	@trap 'scripts/pulseaudio-loopback stop' EXIT; \
	trap 'exit 130' INT TERM; \
	scripts/pulseaudio-loopback start || echo "make test: PulseAudio loopback did not start: ALSA tests will skip (fail under VOICEENGINE_REQUIRE_ALSA=1)" >&2; \
	eval "$$(scripts/pulseaudio-loopback env)"; \
	swift build --build-tests $(SWIFT_TEST_FLAGS) || exit 1; \
	echo "make test: stage 1 of 2: every suite but the real-time ones, in parallel"; \
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(PARALLEL_TEST_CASES) swift test --skip-build $(SWIFT_TEST_FLAGS) --skip '$(REALTIME_SUITES)'; parallel=$$?; \
	echo "make test: stage 2 of 2: the real-time suites, one test at a time"; \
	nice -n -10 swift test --skip-build $(SWIFT_TEST_FLAGS) --no-parallel --filter '$(REALTIME_SUITES)'; serial=$$?; \
	echo "make test: parallel stage exit $$parallel, real-time stage exit $$serial"; \
	[ $$parallel -eq 0 ] && [ $$serial -eq 0 ]

## Benchmarks, release build: make benchmarks ARGS="opus srtp --json out/bench.json"
benchmarks: deps
	swift run -c release benchmarks $(ARGS)

## Call quality, release build: PESQ-WB of the speech fixtures through two calls over a clean link
## and the G.1050 classes, per FEC plan, against libopus alone. Installs what PyPI's pesq needs to
## build, then pesq itself into .build/pesq-venv (scripts/pesq-venv, first run only).
## make quality ARGS="--seeds 8 --json out/quality.json"
quality:
	scripts/install-deps --quality
	scripts/pesq-venv >/dev/null
	swift run -c release benchmarks quality $(ARGS)

## Regenerates the speech fixtures in vectors/ (needs espeak-ng and sox).
fixtures:
	scripts/install-deps --fixtures
	scripts/make-speech-fixtures

## libFuzzer targets (Fuzz/, AddressSanitizer), each SECONDS s: make fuzz SECONDS=60 [TARGETS="rtp srtp"].
## Prints executions and crashes per target; crashing inputs go to out/fuzz/<target>/.
SECONDS ?= 30
fuzz: deps
	scripts/fuzz --seconds $(SECONDS) $(TARGETS)

## DocC documentation of every public library with the toolchain's docc (scripts/docs): one
## archive per catalog Sources/<Module>/<Module>.docc in .build/docs/<Module>.doccarchive.
## A warning in a catalog fails; warnings in the sources' /// comments are listed.
## make docs MODULES="RTP SRTP" builds only those.
docs: deps
	scripts/docs $(MODULES)

## The test suite under AddressSanitizer / ThreadSanitizer, each in its own build directory.
test-asan: test-deps
	@trap 'scripts/pulseaudio-loopback stop' EXIT; trap 'exit 130' INT TERM; \
	scripts/pulseaudio-loopback start || true; eval "$$(scripts/pulseaudio-loopback env)"; \
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan-suppressions.txt SWIFT_BACKTRACE=enable=no swift test --sanitize=address --scratch-path .build/asan $(SWIFT_TEST_FLAGS)

test-tsan: test-deps
	@trap 'scripts/pulseaudio-loopback stop' EXIT; trap 'exit 130' INT TERM; \
	scripts/pulseaudio-loopback start || true; eval "$$(scripts/pulseaudio-loopback env)"; \
	SWIFT_BACKTRACE=enable=no swift test --sanitize=thread --scratch-path .build/tsan $(SWIFT_TEST_FLAGS)
