# SyncKernel: `make run` runs the fleet simulator on embedded defaults, `make test` runs every test.
SWIFT ?= swift
SIM_ARGS ?= --devices 3 --rows 20000 --diff 100 --latency-ms 30 --seed 1
BENCH_GRID_ARGS ?=
# Services `make test` starts before the tests and stops when it ends, declared by mk/*.mk fragments.
TEST_SERVICES :=
TEST_SERVICES_STOP :=

-include mk/*.mk

.PHONY: run test deps build release bench bench-grid conformance-soak storm-sweep clean

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

## bench: the earlier side-by-side comparisons in one release run: whole-bucket against listing responses in a
## 3-device fleet, maintained against rescanned digests (`synckernel bench --rows N --diff D` is the reconcile benchmark).
bench: release
	$(SWIFT) run -c release --skip-build synckernel bench

## bench-grid: the reconcile benchmark over N in {1e3, 1e5, 1e6} x D in {0, 1, 10, 100, 1000}, spec and fast modes
## side by side; prints the table and writes bench-grid.csv here (points estimated above 10 minutes are skipped).
bench-grid: release
	$(SWIFT) run -c release --skip-build synckernel bench --grid $(BENCH_GRID_ARGS)

## conformance-soak: the storm-conformance kit over every namespace and the guide's worked example with 40 seeds (about 4 minutes).
conformance-soak: deps
	$(SWIFT) build --build-tests
	SYNCKERNEL_CONFORMANCE_SEEDS=40 $(SWIFT) test --skip-build --disable-swift-testing --filter "NamespaceConformanceTests|WorkedExampleTests"

## storm-sweep: converging fleets over every namespace (10 seeds x 0/30/80/150 ms, 400 writes over 20 s, loss and
## duplication) must never trip the storm guard; prints fleets and trips per latency (about 3 minutes).
storm-sweep: deps
	$(SWIFT) build --build-tests
	SYNCKERNEL_STORM_SWEEP_SEEDS=10 $(SWIFT) test --skip-build --disable-swift-testing --filter StormSweepTests

clean:
	rm -rf .build
