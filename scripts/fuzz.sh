#!/usr/bin/env bash
# The libFuzzer targets of Fuzz/FuzzTargets.swift, one per parser an attacker can reach.
#
#   scripts/fuzz.sh smoke [TARGET...]          each target for 3 seconds (`make fuzz-smoke`, run by CI)
#   scripts/fuzz.sh long SECONDS [TARGET...]   each target until 10 million executions or SECONDS
#                                              (`make fuzz`; the issue asks for 10 M or an hour)
#
# Builds `activate-fuzz` with -sanitize=fuzzer,address in .build-fuzz/ (its own build folder),
# seeds each corpus (.build-fuzz/corpus/TARGET) from the test fixtures and Fuzz/seeds/, and runs
# each target with a 1 s per-input timeout and a 500 MB memory limit; leak detection is on.
# Any crash, leak, timeout or out-of-memory input is saved under .build-fuzz/findings/TARGET/
# and fails the run, as does an earlier finding that still fails (one that runs cleanly now moves
# to findings/TARGET/fixed/). Prints one line per target: executions, speed, corpus size, findings.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-smoke}
shift || true
case "$mode" in
  smoke) seconds=${FUZZ_SMOKE_SECONDS:-3}; runs=-1; configuration=debug ;;
  long) seconds=${1:?usage: scripts/fuzz.sh long SECONDS [TARGET...]}; shift; runs=10000000; configuration=release ;;
  *) echo "usage: scripts/fuzz.sh smoke|long SECONDS [TARGET...]" >&2; exit 64 ;;
esac
all=(png png-direct jpeg pnm qr-model1 json xml-plist binary-plist mdm jws links url store age-file store-contents store-state discovery-request ac1 ac1-payload trust-list oauth-callback token-answer device-answer oauth-metadata)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

# Smoke runs share the debug build's compile time with nothing else; long runs want speed.
# -enable-testing: the ac1-payload target calls the steps behind the signature check directly.
# --disable-default-traits: the parsers need no network stack, so none is built with the sanitizers.
build=(swift build --scratch-path .build-fuzz -c "$configuration" --disable-default-traits -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing)
mkdir -p .build-fuzz
echo "fuzz: building activate-fuzz ($configuration, -sanitize=fuzzer,address)" >&2
ACTIVATE_FUZZ=1 "${build[@]}" --product activate-fuzz >.build-fuzz/build.log 2>&1 || { tail -40 .build-fuzz/build.log >&2; exit 1; }
binary=$(ACTIVATE_FUZZ=1 "${build[@]}" --show-bin-path)/activate-fuzz

fixtures=Tests/ActivationConfigurationTests/Fixtures/documents
images=Tests/ActivationImagingTests/Fixtures
seed() {  # seed TARGET DIR: copies the files a real input of this kind looks like
  local target=$1 dir=$2
  case "$target" in
    png) find "$images" SampleCodes -name '*.png' -size -200k -exec cp {} "$dir/" \; ;;
    jpeg) find "$images" SampleCodes -name '*.jpg' -size -200k -exec cp {} "$dir/" \; ;;
    pnm) find "$images" -name '*.p[bgpn]m' -exec cp {} "$dir/" \; ;;
    json) cp "$fixtures"/*.json SampleCodes/*.json "$dir/" ;;
    xml-plist) cp "$fixtures"/*.plist "$dir/" ;;
    binary-plist) cp "$fixtures"/*.bplist "$dir/" ;;
    *) cp Fuzz/seeds/"$target"/* "$dir/" ;;
  esac
}

failed=0
printf '%-18s %12s %10s %8s  %s\n' target executions exec/s corpus findings
for target in "${targets[@]}"; do
  corpus=.build-fuzz/corpus/$target findings=.build-fuzz/findings/$target log=.build-fuzz/logs/$target.log
  mkdir -p "$corpus" "$findings" .build-fuzz/logs
  [ -n "$(ls -A "$corpus")" ] || seed "$target" "$corpus"
  environment=(FUZZ_TARGET="$target" ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:quarantine_size_mb=64
               LSAN_OPTIONS=suppressions=Fuzz/lsan-suppressions.txt)
  # An earlier finding that this build runs cleanly was fixed: kept in fixed/, not counted again.
  for earlier in "$findings"/*; do
    [ -f "$earlier" ] || continue
    if env "${environment[@]}" "$binary" -timeout=1 -rss_limit_mb=500 -malloc_limit_mb=500 "$earlier" >/dev/null 2>&1; then
      mkdir -p "$findings/fixed" && mv "$earlier" "$findings/fixed/"
    fi
  done
  status=0
  env "${environment[@]}" "$binary" "$corpus" \
    -max_total_time="$seconds" -runs="$runs" -timeout=1 -rss_limit_mb=500 -malloc_limit_mb=500 \
    -artifact_prefix="$findings/" -print_final_stats=1 -close_fd_mask=1 >"$log" 2>&1 || status=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  found=$(find "$findings" -maxdepth 1 -type f | wc -l)
  printf '%-18s %12s %10s %8s  %s\n' "$target" "${executions:-?}" "${speed:-?}" "$(ls "$corpus" | wc -l)" \
    "$( [ "$status" -eq 0 ] && [ "$found" -eq 0 ] && echo none || echo "FOUND (exit $status): $findings, log $log")"
  if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then failed=1; grep -m5 -E 'ERROR|SUMMARY|Fatal' "$log" >&2 || true; fi
done
exit $failed
