# NATS relay: the relay tests start their own nats-server processes (a server or a three-node
# cluster on free 127.0.0.1 ports, stopped when the test ends; see Sources/TestServers and
# docs/relay.md): `make test` installs nats-server when missing. The client library (libnats-dev)
# is a build dependency, installed by `make deps`; the TLS test makes its certificate with openssl.
TEST_PACKAGES += nats-server openssl
