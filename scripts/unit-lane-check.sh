#!/usr/bin/env bash
# The unit lane's promise, checked (part of `make test`): the tests of the unit targets (every
# test target whose name does not end in IntegrationTests) start no process and open no network
# socket. The lane's runner is traced (strace: execve, and socket for the IPv4 and IPv6
# families); any such call is a failure, shown with what was started or opened.
#   scripts/unit-lane-check.sh            (after `swift build --build-tests`)
set -euo pipefail
cd "$(dirname "$0")/.."
runner=$(swift build --show-bin-path)/activatePackageTests.xctest
trace=$(mktemp)
log=$(mktemp)
trap 'rm -f "$trace" "$log"' EXIT
if ! strace -f -qq --seccomp-bpf -e trace=execve,socket -e signal=none -o "$trace" \
  "$runner" --testing-library swift-testing --skip 'IntegrationTests\.' > "$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "the unit lane failed under strace" >&2
  exit 1
fi
# The runner's own start is the first execve; every other is a child the lane started.
spawned=$(grep -c 'execve(' "$trace" || true)
network=$(grep -E 'socket\(AF_INET6?,' "$trace" || true)
if [ "$spawned" -gt 1 ] || [ -n "$network" ]; then
  echo "the unit lane started $((spawned - 1)) processes and opened $(printf '%s' "$network" | grep -c . || true) network sockets:" >&2
  grep 'execve(' "$trace" | tail -n +2 | cut -c1-200 | sort | uniq -c | sort -rn | head -20 >&2
  printf '%s\n' "$network" | head -20 >&2
  echo "move those tests to an integration target (a name ending in IntegrationTests)" >&2
  exit 1
fi
echo "the unit lane started no process and opened no network socket ($(grep -o 'Test run with [0-9]* tests' "$log" | tail -n 1 | sed 's/Test run with //'))"
