# CloudAnchor: the WebDAV tests start their own server (rclone serve webdav on a free 127.0.0.1
# port, one per test, stopped when the test ends; see Sources/TestServers): `make test` installs
# rclone when missing.
TEST_PACKAGES += rclone

## cloud-bench: the WebDAV requests of directory backups of a 10,000-file tree (first, unchanged,
## one file changed), whole-tree listing and folder-by-folder, against an rclone server started
## and stopped by scripts/cloud-bench.sh. Request counts, not timings: a debug build is enough.
.PHONY: cloud-bench
cloud-bench: deps
	$(SWIFT) build --product synckernel
	scripts/cloud-bench.sh .build/debug/synckernel $(CLOUD_BENCH_ARGS)
	scripts/cloud-bench.sh .build/debug/synckernel --finite-depth $(CLOUD_BENCH_ARGS)
