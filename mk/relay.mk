# NATS relay: the relay tests start their own nats-server processes (a server or a three-node
# cluster on free 127.0.0.1 ports, stopped when the test ends; see Sources/TestServers and
# docs/relay.md): `make test` installs nats-server when missing. The client library (libnats-dev)
# is a build dependency, installed by `make deps`; the TLS test makes its certificate with openssl.
TEST_PACKAGES += nats-server openssl

.PHONY: bench-flood
## bench-flood: what junk envelopes cost a `synckernel device` process per gate drop reason (CPU per drop, the gate
## alone and the primitive beside it) and a 1,000-row sync with and without a 1,000-a-second junk flood, over a
## nats-server the command starts on a free loopback port (about 2 minutes).
bench-flood: release
	@scripts/ensure-packages.sh nats-server
	$(SWIFT) run -c release --skip-build synckernel bench-flood $(BENCH_FLOOD_ARGS)

.PHONY: bench-write
## bench-write: local writes on a running `SyncDevice` (over a nats-server the command starts on a free loopback port)
## and on a bare store beside it: rows a second of 20,000 notes in one transaction, median and p90 of 500 single-note
## writes, each on a fresh store file in the temporary folder (`BENCH_WRITE_ARGS="--rows N --singles M"`).
bench-write: release
	@scripts/ensure-packages.sh nats-server
	$(SWIFT) run -c release --skip-build synckernel bench-write $(BENCH_WRITE_ARGS)
