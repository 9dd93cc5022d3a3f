#!/usr/bin/env bash
# Unlocking the secure store against Debian's `age -d` on the same file format (`make bench-store`).
#
#   benchmarks/store-unlock.sh [RUNS]     (hyperfine, RUNS runs each, default 10)
#
# One store per work factor (activate's default and age's own, log2 N = 18), written by
# `activate onboard` under a policy with lock timeout 0, so that every restore derives the key
# again (the keyring keeps nothing). Side by side in one hyperfine invocation:
#   - activate restore --passcode-file: the whole command (open, check, print);
#   - activate restore on a terminal: the passcode typed on a pseudo-terminal (`script`), as age
#     gets it, so both carry the same harness;
#   - age -d on a terminal: the same file, the same passcode (age reads passphrases only there);
#   - the harness alone (`script` reading the line), to subtract.
# Then the peak memory of each (GNU time), which scrypt's N decides: 128 · r · N bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
activate=$(scripts/release-build.sh activate)/activate
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passcode="Bench-passcode-1"
printf '%s\n' "$passcode" > "$work/passcode"
chmod 600 "$work/passcode"
printf '{"passwordPolicy": {"passwordPolicyLockTimeout": "0"}}' > "$work/policy.json"

default=$(sed -n 's/.*static let defaultWorkFactor = \([0-9]*\).*/\1/p' Sources/ActivationSecureStore/Store/SecureStore.swift)
factors=("$default")
[ "$default" = 18 ] || factors+=(18)
for factor in "${factors[@]}"; do
  "$activate" onboard --file SampleCodes/basic-configuration.json --yes --quiet --store "$work/store-$factor.age" \
    --policy "$work/policy.json" --passcode-file "$work/passcode" --work-factor "$factor" </dev/null >/dev/null
  header=$(sed -n 2p "$work/store-$factor.age")
  echo "store-$factor.age: $header" >&2
  # The same file opens with age: the benchmark is only fair if it is the same format and key.
  printf '%s\n' "$passcode" | script -qec "age -d -o '$work/plain-$factor.json' '$work/store-$factor.age'" /dev/null >/dev/null
  grep -q '"format": "activate-secure-store"' "$work/plain-$factor.json" || { echo "age could not open store-$factor.age" >&2; exit 1; }
done

for factor in "${factors[@]}"; do
  store=$work/store-$factor.age
  echo
  echo "## log2 N = $factor ($(( (128 * 8 << factor) >> 20 )) MiB for scrypt)"
  hyperfine --warmup 1 --runs "$runs" --export-markdown "$work/table-$factor.md" \
    -n "activate restore --passcode-file" "$activate restore --store $store --passcode-file $work/passcode" \
    -n "activate restore (terminal)" "script -qec '$activate restore --store $store' /dev/null < $work/passcode" \
    -n "age -d (terminal)" "script -qec 'age -d -o /dev/null $store' /dev/null < $work/passcode" \
    -n "harness alone" "script -qec 'head -n1 >/dev/null' /dev/null < $work/passcode" >&2
  cat "$work/table-$factor.md"
  echo
  for row in "activate restore --passcode-file|$activate restore --store $store --passcode-file $work/passcode" \
             "age -d (terminal)|script -qec 'age -d -o /dev/null $store' /dev/null"; do
    name=${row%%|*} command=${row#*|}
    /usr/bin/time -f "%M" -o "$work/rss" sh -c "$command" <"$work/passcode" >/dev/null 2>&1
    echo "peak memory, $name: $(( $(tail -1 "$work/rss") / 1024 )) MiB"
  done
done
