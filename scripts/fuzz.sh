#!/bin/sh
# Runs the libFuzzer targets named as arguments, one after the other, each for FUZZ_SECONDS over
# a working corpus seeded from `synckernel-fuzz --make-corpus`, and prints per target the inputs
# executed, the corpus size and any crash file. Exits 1 when any target crashed. Called by `make fuzz`.
set -u
: "${FUZZ_BIN:?}" "${FUZZ_SECONDS:?}" "${FUZZ_RSS_MB:?}" "${FUZZ_MALLOC_MB:?}" "${FUZZ_MAX_LEN:?}" "${FUZZ_TIMEOUT:?}" "${FUZZ_WORK:?}"
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=detect_leaks=0
"$FUZZ_BIN" --make-corpus "$FUZZ_WORK/seeds" || exit 1
failed=0
summary=""
for target in "$@"; do
	corpus="$FUZZ_WORK/corpus/$target"
	artifacts="$FUZZ_WORK/artifacts/$target"
	mkdir -p "$corpus" "$artifacts"
	log="$FUZZ_WORK/$target.log"
	echo "fuzz $target: ${FUZZ_SECONDS}s, log $log"
	"$FUZZ_BIN" "$target" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb="$FUZZ_RSS_MB" -malloc_limit_mb="$FUZZ_MALLOC_MB" \
		-max_len="$FUZZ_MAX_LEN" -timeout="$FUZZ_TIMEOUT" -detect_leaks=0 -print_final_stats=1 -artifact_prefix="$artifacts/" \
		"$corpus" "$FUZZ_WORK/seeds/$target" >"$log" 2>&1
	status=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	crashes=$(find "$artifacts" -type f | sort)
	line="fuzz $target: exit $status, ${runs:-?} inputs executed (${speed:-?}/s), corpus $(find "$corpus" -type f | wc -l) files"
	if [ -n "$crashes" ] || [ "$status" -ne 0 ]; then
		failed=1
		line="$line, CRASH: $(echo $crashes)"
		grep -m 3 -E "synckernel-fuzz|ERROR|Fatal error|deadly signal" "$log"
	else
		line="$line, no crash"
	fi
	echo "$line"
	summary="$summary$line
"
done
printf '\n%s' "$summary"
exit $failed
