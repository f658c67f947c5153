# The two entry points of the README. Both install what they need first.
.PHONY: demo test deps test-deps benchmarks fixtures

deps:
	scripts/install-deps

test-deps:
	scripts/install-deps --test

## A demo call on built-in defaults: two endpoints, real UDP on 127.0.0.1, SRTP, Opus.
demo: deps
	swift run voicecall demo

## The whole test suite.
test: test-deps
	swift test

## Benchmarks, release build: make benchmarks ARGS="opus srtp --json out/bench.json"
benchmarks: deps
	swift run -c release benchmarks $(ARGS)

## Regenerates the speech fixtures in vectors/ (needs espeak-ng and sox).
fixtures:
	scripts/install-deps --fixtures
	scripts/make-speech-fixtures
