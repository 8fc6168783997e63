# Fuzzing: `make fuzz` builds the libFuzzer executable (release, -sanitize=fuzzer,address, into
# .build-fuzz so the normal build never needs libFuzzer), writes the seed corpus from the
# project's encoders and runs every target for FUZZ_SECONDS; `make fuzz-replay TARGET=x
# INPUT=file` runs one input (a crash file) through target x once. See docs/hardening.md, Fuzzing.
fuzz_default_goal := $(.DEFAULT_GOAL)

FUZZ_SECONDS ?= 180
FUZZ_TARGETS ?= cbor frame row replica envelope
FUZZ_RSS_MB ?= 2048
FUZZ_MALLOC_MB ?= 1024
FUZZ_MAX_LEN ?= 65536
FUZZ_TIMEOUT ?= 30
FUZZ_BUILD_PATH ?= .build-fuzz
FUZZ_BIN = $(FUZZ_BUILD_PATH)/release/synckernel-fuzz

.PHONY: fuzz fuzz-build fuzz-replay
fuzz-build: deps
	SYNCKERNEL_FUZZ=1 $(SWIFT) build -c release --build-path $(FUZZ_BUILD_PATH) --product synckernel-fuzz \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld

fuzz: fuzz-build
	@FUZZ_BIN=$(FUZZ_BIN) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_RSS_MB=$(FUZZ_RSS_MB) FUZZ_MALLOC_MB=$(FUZZ_MALLOC_MB) \
		FUZZ_MAX_LEN=$(FUZZ_MAX_LEN) FUZZ_TIMEOUT=$(FUZZ_TIMEOUT) FUZZ_WORK=$(FUZZ_BUILD_PATH)/fuzz scripts/fuzz.sh $(FUZZ_TARGETS)

fuzz-replay: fuzz-build
	@test -n "$(TARGET)" -a -n "$(INPUT)" || { echo "usage: make fuzz-replay TARGET=cbor|frame|row|replica|envelope INPUT=crash-file"; exit 2; }
	SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 $(FUZZ_BIN) $(TARGET) -rss_limit_mb=$(FUZZ_RSS_MB) \
		-malloc_limit_mb=$(FUZZ_MALLOC_MB) $(INPUT)

# Defining a target here must not change what a bare `make` runs.
.DEFAULT_GOAL := $(fuzz_default_goal)
