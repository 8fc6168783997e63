# CloudAnchor: `make test` starts the WebDAV server its tests run against (rclone serve webdav
# on 127.0.0.1, installed when missing; see scripts/webdav-server.sh) and stops it when it ends.
cloud_default_goal := $(.DEFAULT_GOAL)

TEST_SERVICES += webdav-server
TEST_SERVICES_STOP += webdav-server-stop

.PHONY: webdav-server webdav-server-stop
webdav-server:
	@scripts/webdav-server.sh

webdav-server-stop:
	@scripts/webdav-server.sh stop

# Defining a target here must not change what a bare `make` runs.
.DEFAULT_GOAL := $(cloud_default_goal)
