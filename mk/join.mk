# Joining: `make test-join-50k` runs the 50,000-row join alone (over a nats-server with JetStream:
# a laptop fills 56,000 rows across ten namespaces, at least 50,000 distinct; a phone joins and
# absorbs them; a tablet joins, is approved by the phone, absorbs a snapshot and converges with
# writes made meanwhile). `make test` runs it too, with the rest of the suite (about 30 s).
.PHONY: test-join-50k

## test-join-50k: the 50,000-row join over nats-server with JetStream, alone.
test-join-50k: deps
	@$(if $(strip $(TEST_PACKAGES)),scripts/ensure-packages.sh $(TEST_PACKAGES),true)
	$(SWIFT) build --build-tests
	@scripts/run-tests.sh $(SWIFT) test --skip-build --disable-swift-testing \
		--filter JoinProcessTests/testAThirdDeviceJoinsTwoMembersHoldingFiftyThousandRowsAndConverges
