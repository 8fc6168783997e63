# End-to-end sync benchmark: two `synckernel device` processes over a nats-server it starts on free loopback ports
# (clients and HTTP monitoring), beside the in-memory bench and negentropy's reference implementation.
BENCH_E2E_ARGS ?= --rows 100000 --diff 1,10,100,1000,10000 --row-bytes 80,500 --sides one --restart none
NEGENTROPY_DRIVER := .build/negentropy/negentropy-driver
NEGENTROPY_SOURCES := bench/negentropy/driver.cpp $(wildcard bench/negentropy/reference/*.h bench/negentropy/reference/negentropy/*.h \
	bench/negentropy/reference/negentropy/storage/*.h)

.PHONY: bench-e2e negentropy-driver
## negentropy-driver: builds bench/negentropy/driver.cpp (g++ -O2) against the vendored negentropy reference headers
## (hoytech/negentropy 6edb041, C++, header-only, OpenSSL's SHA-256) into .build/negentropy/negentropy-driver.
negentropy-driver: $(NEGENTROPY_DRIVER)

$(NEGENTROPY_DRIVER): $(NEGENTROPY_SOURCES)
	@scripts/ensure-packages.sh g++ libssl-dev
	@mkdir -p $(dir $@)
	g++ -std=c++20 -O2 -I bench/negentropy/reference -o $@ bench/negentropy/driver.cpp -lcrypto

## bench-e2e: the end-to-end sync benchmark (release build): per point, bytes and messages published into the nats-server,
## bytes / changed row bytes, wall time, each device's CPU, frames and round trips, beside `synckernel bench`'s ratio and
## negentropy's for the same sets; prints a markdown table and writes bench-e2e.csv here. Default: N = 1e5, rows of 80 and
## 500 B, D in {1, 10, 100, 1e3, 1e4}, one side, stayed up (a few minutes); `BENCH_E2E_ARGS=--grid` runs the whole grid
## (N in {1e5, 1e6}, both sides, restarts of either device: hours), `BENCH_E2E_ARGS="--rows N --diff D --row-bytes B
## --sides one|both --restart none|a|b"` one point.
bench-e2e: release negentropy-driver
	@scripts/ensure-packages.sh nats-server
	$(SWIFT) run -c release --skip-build synckernel bench-e2e $(BENCH_E2E_ARGS)
