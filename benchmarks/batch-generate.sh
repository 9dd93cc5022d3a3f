#!/usr/bin/env bash
# `activate generate --batch` on N documents (default 1000) as signed AC1 codes, each checked and read
# back, against qrencode writing the same number of plain PNG codes (no checks, no signature, no
# read-back) in one shell loop: the rate of each, and activate's peak memory.
#
#   benchmarks/batch-generate.sh [N]        (after: scripts/release-build.sh activate)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-1000}
activate=${ACTIVATE:-.build/shipped/release/activate}
[ -x "$activate" ] || { echo "build first: scripts/release-build.sh activate" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# N copies of the 625-byte sample, each with its own name and app id.
python3 - "$count" "$work/docs.jsonl" <<'PY'
import json, sys
count, path = int(sys.argv[1]), sys.argv[2]
base = json.load(open("SampleCodes/fieldservice-configuration.json"))
with open(path, "w") as out:
    for i in range(count):
        base["name"] = f"user-{i:05d}"
        base["appID"] = f"com.example.fieldservice.{i % 50}"
        out.write(json.dumps(base) + "\n")
PY

echo "cores: $(nproc); documents: $count ($(wc -c <SampleCodes/fieldservice-configuration.json) bytes each); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# Three runs; the median counts. Each run writes a folder of its own, and nothing is deleted until
# the end: on ext4 without a journal, creating files just after deleting a thousand makes the inode
# allocator skip the recently freed ones (recently_deleted), a cost of the benchmark, not of the work.
rates=()
for run in 1 2 3; do
  start=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$work/rss" "$activate" generate --batch "$work/docs.jsonl" --out-dir "$work/codes-$run" --compact \
    --sign Tests/ActivationConfigurationTests/Fixtures/keys/ed25519.pem --issuer bench >/dev/null 2>"$work/log"
  end=$(date +%s.%N)
  made=$(ls "$work/codes-$run" | wc -l)
  rate=$(echo "$made / ($end - $start)" | bc -l)
  rates+=("$rate")
  printf 'run %d: activate generate --batch: %d signed AC1 codes, read back, in %.2f s: %.0f codes/s, peak memory %d MB\n' \
    "$run" "$made" "$(echo "$end - $start" | bc -l)" "$rate" "$(( $(cat "$work/rss") / 1024 ))"
done
activate_rate=$(printf '%s\n' "${rates[@]}" | sort -g | sed -n 2p)
printf 'activate generate --batch, median of 3: %.0f codes/s\n' "$activate_rate"

# qrencode: the same number of codes from the same text, one process per code (how it is scripted).
text=$("$activate" scan --raw "$work/codes-1/user-00000.png")
mkdir "$work/qrencode"
start=$(date +%s.%N)
for i in $(seq 1 "$count"); do printf '%s' "$text" | qrencode -l M -s 8 -o "$work/qrencode/$i.png"; done
end=$(date +%s.%N)
qrencode_rate=$(echo "$count / ($end - $start)" | bc -l)
printf 'qrencode (unsigned, no read-back, one process per code): %.0f codes/s\n' "$qrencode_rate"
printf 'ratio activate/qrencode: %.2f\n' "$(echo "$activate_rate / $qrencode_rate" | bc -l)"
