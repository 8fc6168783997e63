# SyncKernel: `make run` runs the fleet simulator on embedded defaults, `make test` runs every test.
SWIFT ?= swift
SIM_ARGS ?= --devices 3 --rows 20000 --diff 100 --latency-ms 30 --seed 1
BENCH_GRID_ARGS ?=
SOAK_ARGS ?= --fleets 1000
# The soak's SQLite files go to memory where the machine has it: every commit's fsync otherwise
# triples the run's wall time, and a soak crash is the process's, which committed pages survive.
SOAK_DIR ?= $(wildcard /dev/shm)
# Programs the tests start themselves (servers on free loopback ports, stopped when each test
# ends), declared by mk/*.mk fragments: `make test` installs them when missing.
TEST_PACKAGES :=

-include mk/*.mk

.PHONY: run test test-large export-figure deps build release bench bench-grid conformance-soak soak storm-sweep clean

## deps: install the system libraries the package links (libsqlite3-dev, libsodium-dev, libnats-dev) when missing.
deps:
	@scripts/ensure-packages.sh libsqlite3-dev libsodium-dev libnats-dev

build: deps
	$(SWIFT) build

release: deps
	@echo "building synckernel in release mode: about 2 to 3 minutes the first time on two idle cores, far longer when other work shares them"
	$(SWIFT) build -c release --product synckernel

## run: simulate a three-device fleet converging over the in-process relay.
run: release
	$(SWIFT) run -c release --skip-build synckernel simulate $(SIM_ARGS)

## test: build and run the whole test suite but the long runs that have targets of their own
## (`LargeChangeTests` and every test whose name starts `testAtScale`: `make test-large`). Each test starts the servers it needs and stops them
## when it ends, pass or fail; scripts/run-tests.sh fails the run if any process the tests started
## is still running after them (and stops it).
test: deps
	@$(if $(strip $(TEST_PACKAGES)),scripts/ensure-packages.sh $(TEST_PACKAGES),true)
	$(SWIFT) build --build-tests
	@scripts/run-tests.sh $(SWIFT) test --skip-build --disable-swift-testing --skip LargeChangeTests --skip /testAtScale

## test-large: the long tests (LargeChangeTests: a 100,000-operation write, 100,000 operations on
## each side, a device killed while taking in a large change, with two `synckernel device`
## processes of the release build (SYNCKERNEL_BINARY) over a nats-server each test starts; and the
## `testAtScale` tests of the debug build: 50,000 differences between two stores, a 50,000-row
## snapshot and join, the wide sketch sizing at 20,000 and 50,000 items, a 1e6-row snapshot export
## beside a device that keeps answering its status and writes); about 20 to 35 minutes.
test-large: deps release
	@$(if $(strip $(TEST_PACKAGES)),scripts/ensure-packages.sh $(TEST_PACKAGES),true)
	$(SWIFT) build --build-tests
	@SYNCKERNEL_BINARY=$(CURDIR)/.build/release/synckernel scripts/run-tests.sh $(SWIFT) test --skip-build \
		--disable-swift-testing --filter LargeChangeTests --filter /testAtScale

## export-figure: the 1e6-row snapshot export beside a device that keeps answering its status, its
## writes and its sibling (`SnapshotExportTests`, both sizes), in a release build of the tests
## (`-enable-testing`, in .build/release); prints the timings; about 6 minutes with the build.
export-figure: deps
	@$(if $(strip $(TEST_PACKAGES)),scripts/ensure-packages.sh $(TEST_PACKAGES),true)
	$(SWIFT) build -c release --build-tests -Xswiftc -enable-testing
	@scripts/run-tests.sh $(SWIFT) test -c release -Xswiftc -enable-testing --skip-build --disable-swift-testing \
		--filter SnapshotExportTests

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

## soak: 1,000 seeded fleets (3-7 devices, all namespaces, loss, duplication, reordering, partitions, crashes that
## restart from SQLite, clocks off up to 24 h) checked for convergence, against an oracle store and for storm trips;
## prints the summary and every failing seed. `make soak SEED=N` replays fleet N alone, bit for bit.
soak: release
	$(SWIFT) run -c release --skip-build synckernel soak $(if $(SOAK_DIR),--directory $(SOAK_DIR)) \
		$(if $(SEED),--seed $(SEED),$(SOAK_ARGS))

## storm-sweep: converging fleets over every namespace (10 seeds x 0/30/80/150 ms, 400 writes over 20 s, loss and
## duplication) must never trip the storm guard; prints fleets and trips per latency (about 3 minutes).
storm-sweep: deps
	$(SWIFT) build --build-tests
	SYNCKERNEL_STORM_SWEEP_SEEDS=10 $(SWIFT) test --skip-build --disable-swift-testing --filter StormSweepTests

clean:
	rm -rf .build
