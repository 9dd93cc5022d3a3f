#!/usr/bin/env bash
# How many times the quick lane (`make check`) starts the `activate` binary: the tests run with
# ACTIVATE_BIN pointing at a wrapper that counts each start, then runs the real binary.
#   scripts/count-cli-spawns.sh            (after `swift build --build-tests`)
set -euo pipefail
cd "$(dirname "$0")/.."
skip=$(sed -n 's/^CHECK_SKIP = //p' Makefile)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/activate" <<WRAPPER
#!/bin/sh
echo x >> "$work/count"
exec "$PWD/.build/debug/activate" "\$@"
WRAPPER
chmod +x "$work/activate"
: > "$work/count"
# The test that looks for the zxing helper beside the binary finds the wrapper's folder empty and
# fails here; it is the only one, and it starts the binary as often either way.
ACTIVATE_BIN="$work/activate" swift test --skip-build --skip "$skip" > "$work/log" 2>&1 || true
echo "the quick lane started activate $(wc -l < "$work/count") times ($(grep -o 'Test run with [0-9]* tests' "$work/log" | tail -n 1))"
grep '^✘ Test "' "$work/log" | grep -o 'Test "[^"]*"' | sort -u | sed 's/^/failed under the wrapper: /' || true
