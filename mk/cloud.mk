# CloudAnchor: `make test` first starts the WebDAV server its tests run against
# (rclone serve webdav on 127.0.0.1, installed when missing; see scripts/webdav-server.sh).
cloud_default_goal := $(.DEFAULT_GOAL)

TEST_PREREQS += webdav-server

.PHONY: webdav-server
webdav-server:
	@scripts/webdav-server.sh

# Defining a target here must not change what a bare `make` runs.
.DEFAULT_GOAL := $(cloud_default_goal)
