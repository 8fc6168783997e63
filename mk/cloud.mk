# CloudAnchor: the WebDAV tests start their own server (rclone serve webdav on a free 127.0.0.1
# port, one per test, stopped when the test ends; see Sources/TestServers): `make test` installs
# rclone when missing.
TEST_PACKAGES += rclone
