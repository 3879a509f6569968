# Timbre: `make demo` and `make test` do all the set-up on a fresh Debian machine.
SHELL := /bin/bash
SWIFT ?= swift
CONFIG ?= release
BUILD_FLAGS := -c $(CONFIG)
# Debian packages the build and the tests need (sox is a test oracle, jackd2 runs JACK tests,
# python3-jsonschema validates presets against the JSON Schema).
DEB_PACKAGES := pkg-config libsndfile1-dev libjack-jackd2-dev libfftw3-dev jackd2 sox libsox-fmt-base \
                python3 python3-jsonschema
BIN := .build/$(CONFIG)/timbre
DEMO_DIR ?= out/demo

.PHONY: all deps build test demo presets check-presets clean help benchmark

all: build

help:
	@echo "make demo   install packages, build, render the embedded demo into $(DEMO_DIR)"
	@echo "make test   install packages, build, run every test"
	@echo "make benchmark   run the package-benchmark suite (Benchmarks/)"

## Install whatever Debian packages are missing (needs root or sudo).
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "Swift 6 toolchain not found on PATH (https://swift.org/install)"; exit 1; }

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

## Regenerate the presets embedded in the CLI after editing Presets/*.json.
presets:
	python3 scripts/embed-presets.py

check-presets:
	@python3 scripts/embed-presets.py --check || { echo "Sources/timbre/EmbeddedPresets.swift is stale: run 'make presets'"; exit 1; }

test: build check-presets
	TIMBRE_BIN=$(CURDIR)/$(BIN) $(SWIFT) test $(BUILD_FLAGS) 2>&1 | tee .build/test.log; exit $${PIPESTATUS[0]}
	$(BIN) demo --output-dir $$(mktemp -d) --seconds 2 >/dev/null
	.build/$(CONFIG)/PrintBandsExample Presets/podcast-voice.json >/dev/null
	d=$$(mktemp -d) && .build/$(CONFIG)/RenderChainExample $$d/chain.wav >/dev/null && $(BIN) info $$d/chain.wav >/dev/null

demo: build
	mkdir -p $(DEMO_DIR)
	$(BIN) demo --output-dir $(DEMO_DIR)
	$(BIN) info $(DEMO_DIR)/demo-output.wav

benchmark: deps
	cd Benchmarks && $(SWIFT) package benchmark

clean:
	rm -rf .build out
