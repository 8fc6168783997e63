# SyncKernel: `make run` runs the fleet simulator on embedded defaults, `make test` runs every test.
SWIFT ?= swift
SIM_ARGS ?= --devices 3 --rows 20000 --diff 100 --latency-ms 30 --seed 1
# Services `make test` starts before the tests and stops when it ends, declared by mk/*.mk fragments.
TEST_SERVICES :=
TEST_SERVICES_STOP :=

-include mk/*.mk

.PHONY: run test deps build release bench conformance-soak clean

## deps: install the system libraries the package links (libsqlite3-dev, libsodium-dev) when missing.
deps:
	@scripts/ensure-packages.sh libsqlite3-dev libsodium-dev

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product synckernel

## run: simulate a three-device fleet converging over the in-process relay.
run: release
	$(SWIFT) run -c release --skip-build synckernel simulate $(SIM_ARGS)

## test: build and run the whole test suite; the services it starts stop when it ends, pass or fail.
test: deps
	@trap '$(if $(TEST_SERVICES_STOP),$(MAKE) --no-print-directory $(TEST_SERVICES_STOP))' EXIT; \
	$(if $(TEST_SERVICES),$(MAKE) --no-print-directory $(TEST_SERVICES),true) && \
	$(SWIFT) build --build-tests && \
	$(SWIFT) test --skip-build --disable-swift-testing

## bench: wire and digest cost, side by side in one release run (numbers and ratios).
bench: release
	$(SWIFT) run -c release --skip-build synckernel bench

## conformance-soak: the storm-conformance kit over every namespace and the guide's worked example with 40 seeds (about 4 minutes).
conformance-soak: deps
	$(SWIFT) build --build-tests
	SYNCKERNEL_CONFORMANCE_SEEDS=40 $(SWIFT) test --skip-build --disable-swift-testing --filter "NamespaceConformanceTests|WorkedExampleTests"

clean:
	rm -rf .build
