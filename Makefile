# Timbre: `make demo` and `make test` do all the set-up on a fresh Debian machine.
SHELL := /bin/bash
SWIFT ?= swift
CONFIG ?= release
BUILD_FLAGS := -c $(CONFIG)
# Debian packages the build and the tests need (sox, libebur128 and Rubber Band's CLI are test
# oracles, jackd2 runs JACK tests, python3-jsonschema validates presets against the JSON Schema,
# librsvg2-bin's rsvg-convert turns plots into PNG; liblilv-dev, lv2-dev and ladspa-sdk build the
# plugin host, and lv2-examples, x42-plugins and swh-plugins are the real plugins its tests load;
# pipewire, pipewire-bin and pipewire-jack run the live host under a headless PipeWire; chromium,
# driven by Playwright from PyPI, tests the control page; slurm-wlm and munge run the README's
# Slurm recipe on a real one-node Slurm; libspeexdsp-dev builds the speexdsp denoiser harness the
# voice clean-up scores compare with, and pesq, pystoi and noisereduce from PyPI score and compare;
# libbs2b-dev builds the harness the crossfeed is checked against; mosqito from PyPI is the
# independent ISO 226 implementation the loudness compensation is checked against).
DEB_PACKAGES := pkg-config libsndfile1-dev libjack-jackd2-dev libfftw3-dev jackd2 sox libsox-fmt-base \
                python3 python3-jsonschema libebur128-dev librsvg2-bin rubberband-cli time ffmpeg parallel espeak-ng \
                liblilv-dev lv2-dev ladspa-sdk lilv-utils lv2-examples x42-plugins swh-plugins alsa-utils \
                pipewire pipewire-bin pipewire-jack chromium slurm-wlm munge libspeexdsp-dev libbs2b-dev
# What the benchmarks compare against: libsoxr (linked by Benchmarks/), ffmpeg and Rubber Band.
BENCH_PACKAGES := libsoxr-dev ffmpeg rubberband-cli sox python3-numpy python3-scipy lsp-plugins-lv2 x42-plugins calf-plugins dragonfly-reverb-lv2 \
                  libzita-convolver-dev brutefir g++
# The command-line program the tests and the demo run: the build's own. `make static` builds it a
# second time with the Swift runtime and Foundation linked in (its own build folder, product
# `timbre` only): it starts in about 7 ms instead of 12 (37 shared libraries mapped instead of 23
# — measured with `timbre --version`), a fifth of a short `--normalize` render, so the
# benchmarks that time whole commands (make bench-compare) run that one. It is not part of
# `make test`: a third full release build would cost CI three minutes for 5 ms a start.
BIN := .build/$(CONFIG)/timbre
STATIC_BIN := .build-static/release/timbre
DEMO_DIR ?= out/demo

.PHONY: all deps bench-deps build build-tests static test demo presets schema check-presets jack-clean clean help benchmark bench-compare rtsan tsan embed-check docs-check diagrams

# RealtimeSanitizer runtime shipped with the Swift toolchain (clang resource folder).
SWIFT_BIN_DIR := $(dir $(realpath $(shell command -v $(SWIFT))))
RTSAN_LIB := $(firstword $(wildcard $(SWIFT_BIN_DIR)../lib/clang/*/lib/linux/libclang_rt.rtsan-x86_64.a))

all: build

help:
	@echo "make demo   install packages, build, render the embedded demo into $(DEMO_DIR)"
	@echo "make test   install packages, build, run every test"
	@echo "make benchmark   run the package-benchmark suite (Benchmarks/)"
	@echo "make bench-compare   Timbre's filter chain, resampler, stretcher, loudness normalisation, dynamics and convolution beside sox, ffmpeg, Rubber Band, LSP, x42, zita-convolver, BruteFIR and pedalboard"
	@echo "make static  the command-line program linked statically (.build-static/release/timbre)"
	@echo "make rtsan  RealtimeSanitizer run of the render path (part of make test)"
	@echo "make tsan   ThreadSanitizer run of the live-engine suites (part of make test)"
	@echo "make embed-check   a dependent package built in debug and release from a fresh clone (part of make test)"
	@echo "make docs-check    the DocC catalogs generated with warnings as errors (part of make test)"

## Install whatever Debian packages are missing (needs root or sudo).
define install_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

deps:
	$(call install_missing,$(DEB_PACKAGES))
	@python3 -c "import playwright" 2>/dev/null || python3 -m pip install --quiet playwright || python3 -m pip install --quiet --break-system-packages playwright
	@python3 -c "import pesq, pystoi, noisereduce, scipy" 2>/dev/null || python3 -m pip install --quiet pesq pystoi noisereduce scipy || python3 -m pip install --quiet --break-system-packages pesq pystoi noisereduce scipy
	@python3 -c "import mosqito" 2>/dev/null || python3 -m pip install --quiet mosqito || python3 -m pip install --quiet --break-system-packages mosqito
	@command -v $(SWIFT) >/dev/null || { echo "Swift 6 toolchain not found on PATH (https://swift.org/install)"; exit 1; }

bench-deps:
	$(call install_missing,$(BENCH_PACKAGES))
	@python3 -c "import pedalboard" 2>/dev/null || python3 -m pip install --quiet pedalboard || python3 -m pip install --quiet --break-system-packages pedalboard

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

## The same configuration with the test targets (and AllocationCheck, which the TSan suites run),
## built once: `make test` runs every suite with --skip-build (a plain `build` first, then
## `swift test` building for itself, compiled every module twice: 4 minutes of a 2-core CI run).
build-tests: deps
	$(SWIFT) build $(BUILD_FLAGS) --build-tests

## The statically linked command-line program (see STATIC_BIN above).
static: deps
	$(SWIFT) build -c release --product timbre --static-swift-stdlib --scratch-path .build-static

## Regenerate the presets embedded in the CLI after editing Presets/*.json.
presets:
	python3 scripts/embed-presets.py

## The routing pictures in docs/routing, drawn by timbre from the shipped presets (a test
## compares them with what the binary draws).
diagrams: build
	for p in active-speaker-2way monitor-mix surround-delivery surround-stems ducking studio-graph; do $(BIN) presets diagram $$p --svg docs/routing/$$p.svg; done

## The node kinds' ranges and defaults written into the preset schema from the catalog
## (ParameterSpec; `timbre presets schema`), then embedded for the web page.
schema: build
	python3 scripts/write-schema.py $(BIN)
	python3 scripts/embed-presets.py

check-presets:
	@python3 scripts/embed-presets.py --check || { echo "Sources/TimbreHost/EmbeddedPresets.swift is stale: run 'make presets'"; exit 1; }

## JACK keeps a registry of servers in /dev/shm with room for eight; a server that dies without
## unregistering (killed, or orphaned by a client that crashed on purpose, as the RealtimeSanitizer
## self-test does) keeps its slot, and after eight such the next jackd cannot start ("did not come
## up"). With no jackd running, the registry and the semaphores and segments of dead servers are
## stale: they are removed (jackd writes a new registry). A running jackd's state is never touched.
jack-clean:
	@if ! pgrep -x jackd >/dev/null && ! pgrep -x jackdbus >/dev/null; then \
	  n=$$(ls /dev/shm 2>/dev/null | grep -c '^jack'); \
	  rm -rf /dev/shm/jack-shm-registry /dev/shm/jack_sem.* /dev/shm/jack-[0-9]* /dev/shm/jack_db-* 2>/dev/null; \
	  if [ "$$n" -gt 0 ]; then echo "jack-clean: no JACK server running; $$n stale JACK entries removed from /dev/shm"; fi; \
	fi

## RealtimeSanitizer run of the render path with concurrent plan swaps (its own build folder).
rtsan: deps jack-clean
	@test -n "$(RTSAN_LIB)" || { echo "libclang_rt.rtsan not found beside $(SWIFT)"; exit 1; }
	$(SWIFT) build -c release --product RealtimeSafetyCheck --scratch-path .build-rtsan \
	  -Xlinker --whole-archive -Xlinker $(RTSAN_LIB) -Xlinker --no-whole-archive -Xlinker -lstdc++
	.build-rtsan/release/RealtimeSafetyCheck
	@.build-rtsan/release/RealtimeSafetyCheck --self-test >/dev/null 2>&1; rc=$$?; \
	  if [ $$rc -eq 43 ]; then echo "RealtimeSanitizer self-test: a deliberate allocation was caught (exit 43)"; \
	  else echo "RealtimeSanitizer self-test did not fire (exit $$rc)"; exit 1; fi
	@.build-rtsan/release/RealtimeSafetyCheck --self-test-jack >/dev/null 2>&1; rc=$$?; \
	  pkill -f "[j]ackd --no-realtime --sync -n timbre-rtsan-" 2>/dev/null; \
	  for i in 1 2 3 4 5 6 7 8 9 10; do pgrep -f "[j]ackd --no-realtime --sync -n timbre-rtsan-" >/dev/null || break; sleep 0.5; done; \
	  if [ $$rc -eq 43 ]; then echo "RealtimeSanitizer self-test under JACK: an allocation in a process cycle was caught (exit 43)"; \
	  else echo "RealtimeSanitizer self-test under JACK did not fire (exit $$rc)"; exit 1; fi

## ThreadSanitizer run of the suites where control and audio threads meet: concurrent plan
## swaps, edits and the render (its own build folder). A debug build: TSan instruments every
## memory access at any optimisation level, and this one builds in 108 s where the release one
## took 336 s here (the suites then run in 36 s instead of 19); @_noLocks is the release
## build's check, made by `make build`.
TSAN_SUITES := LiveEngineTests|GraphTests|BackgroundFileWriterTests|ConvolutionWorkerTests|ConvolutionCrossfadeTests
tsan: deps
	$(SWIFT) build --sanitize=thread --build-tests --scratch-path .build-tsan
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan --skip-build --filter '$(TSAN_SUITES)' 2>&1 | tee .build-tsan/tsan.log; \
	  rc=$${PIPESTATUS[0]}; if grep -q "WARNING: ThreadSanitizer" .build-tsan/tsan.log; then echo "ThreadSanitizer reported a data race"; exit 1; fi; exit $$rc

## A package of its own that depends on Timbre (Examples/Embedding), built from a fresh clone of
## this repository's HEAD in debug (plain `swift build`) and in release; their renders must agree
## within Float rounding.
embed-check: deps
	@set -eo pipefail; d=$$(mktemp -d); git clone -q "$(CURDIR)" $$d/Timbre; cp -r $$d/Timbre/Examples/Embedding $$d/App; cd $$d/App; \
	  export TIMBRE_PATH=$$d/Timbre; start=$$(date +%s); $(SWIFT) build 2>&1 | tail -1; \
	  echo "dependent package, plain swift build (debug) from a fresh clone: $$(( $$(date +%s) - start )) s"; \
	  .build/debug/EmbeddingExample $$d/debug.f32; $(SWIFT) test 2>&1 | tail -1; \
	  $(SWIFT) build -c release 2>&1 | tail -1; .build/release/EmbeddingExample $$d/release.f32; \
	  python3 "$(CURDIR)/scripts/compare-f32.py" $$d/debug.f32 $$d/release.f32; rm -rf $$d

## The DocC catalogs (one per public module): generated with warnings as errors, so a broken
## symbol link or a missing article fails the run.
docs-check: deps
	@set -o pipefail; $(SWIFT) package generate-documentation --warnings-as-errors $(foreach m,TimbreDSP TimbreEngine TimbreFile TimbreControl TimbreJack TimbrePlugins TimbreHost,--target $(m)) 2>&1 | tail -7

test: build-tests check-presets rtsan tsan embed-check docs-check
	@if [ -d .git ]; then git status --porcelain --untracked-files=all > .build/status-before-test; fi
	TIMBRE_BIN=$(CURDIR)/$(BIN) $(SWIFT) test $(BUILD_FLAGS) --skip-build --skip 'LiveJackTests|RecordJackTests|PipeWireTests' 2>&1 | tee .build/test.log; exit $${PIPESTATUS[0]}
	@$(MAKE) --no-print-directory jack-clean
	@echo "JACK tests (a real jackd, run after the others so CPU load does not disturb its timing):"
	TIMBRE_BIN=$(CURDIR)/$(BIN) $(SWIFT) test $(BUILD_FLAGS) --skip-build --filter LiveJackTests 2>&1 | tee .build/test-jack.log; exit $${PIPESTATUS[0]}
	@echo "Recording tests (a real jackd; a suite of their own: JACK_DEFAULT_SERVER is per process):"
	TIMBRE_BIN=$(CURDIR)/$(BIN) $(SWIFT) test $(BUILD_FLAGS) --skip-build --filter RecordJackTests 2>&1 | tee .build/test-record.log; exit $${PIPESTATUS[0]}
	@echo "PipeWire tests (a headless PipeWire daemon; the clients are Timbre processes on pipewire-jack):"
	TIMBRE_BIN=$(CURDIR)/$(BIN) $(SWIFT) test $(BUILD_FLAGS) --skip-build --filter PipeWireTests 2>&1 | tee .build/test-pipewire.log; exit $${PIPESTATUS[0]}
	$(BIN) demo --output-dir $$(mktemp -d) --seconds 2 >/dev/null
	.build/$(CONFIG)/PrintBandsExample Presets/podcast-voice.json >/dev/null
	d=$$(mktemp -d) && .build/$(CONFIG)/RenderChainExample $$d/chain.wav >/dev/null && $(BIN) info $$d/chain.wav >/dev/null
	.build/$(CONFIG)/ChangeRateExample | grep -q "expected 659.255 Hz; latency 6616 frames (137.8 ms), underruns 0"
	d=$$(mktemp -d) && .build/$(CONFIG)/TwoChannelsExample $$d/two.wav | grep -q "384000 frames" && $(BIN) info $$d/two.wav >/dev/null
	d=$$(mktemp -d) && $(BIN) demo --output-dir $$d --seconds 2 >/dev/null && .build/$(CONFIG)/HostSessionsExample $$d/demo-output.wav $$d/out | grep -q "normalised: gain .*-16.00 LUFS" && test -s $$d/out/report.jsonl
	@# No test may write into the checkout (a fuzzed `save` once did, the browser test rewrote
	@# docs/web-*.png): any new or changed file fails the run.
	@if [ -d .git ] && ! git status --porcelain --untracked-files=all | diff .build/status-before-test - ; then echo "make test: the files above were written or changed in the checkout"; exit 2; fi

demo: build
	mkdir -p $(DEMO_DIR)
	$(BIN) demo --output-dir $(DEMO_DIR)
	$(BIN) info $(DEMO_DIR)/demo-output.wav

## The per-block cost matrix (every node × block 32…4096 × 1/2/8 channels) as one table, failing
## on any allocation; then package-benchmark's own output for the analysis and rate suites.
benchmark: deps bench-deps
	python3 scripts/benchmark-table.py
	cd Benchmarks && $(SWIFT) package benchmark --target EditBenchmarks --target AnalysisBenchmarks --target RateBenchmarks

## Side by side, same machine, same run: the filter chain (timbre vs sox vs ffmpeg, AVX2 and
## portable paths), sample-rate conversion (timbre vs sox rate -v vs ffmpeg's soxr, and the
## converters alone in process beside libsoxr), time-stretch (timbre vs rubberband -3) and
## batches (10,000 one-second files vs one long file, timbre vs sox under GNU parallel),
## --normalize vs ffmpeg's two-pass loudnorm (loudness error, true-peak overshoot, time),
## medians of interleaved runs.
bench-compare: build static bench-deps
	python3 scripts/bench-compare-chain.py $(STATIC_BIN)
	python3 scripts/bench-compare-rate.py $(STATIC_BIN)
	python3 scripts/bench-compare-batch.py $(STATIC_BIN)
	python3 scripts/bench-compare-loudnorm.py $(STATIC_BIN)
	python3 scripts/bench-compare-dynamics.py $(STATIC_BIN)
	python3 scripts/bench-compare-convolution.py $(STATIC_BIN)
	python3 scripts/bench-compare-effects.py $(STATIC_BIN)

clean:
	rm -rf .build .build-rtsan .build-tsan out
