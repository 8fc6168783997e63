# Joining: `make test-join-50k` runs the 50,000-row join alone (two `synckernel device` members
# holding 25,000 rows each over a nats-server with JetStream; a third joins, is approved, absorbs
# the snapshot and converges). `make test` runs it too, with the rest of the suite.
.PHONY: test-join-50k

## test-join-50k: the 50,000-row join over nats-server with JetStream (about a minute on 2 cores).
test-join-50k: deps
	@$(if $(strip $(TEST_PACKAGES)),scripts/ensure-packages.sh $(TEST_PACKAGES),true)
	$(SWIFT) build --build-tests
	@scripts/run-tests.sh $(SWIFT) test --skip-build --disable-swift-testing \
		--filter JoinProcessTests/testAThirdDeviceJoinsTwoMembersHoldingFiftyThousandRowsAndConverges
