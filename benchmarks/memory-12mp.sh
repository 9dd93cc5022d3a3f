#!/usr/bin/env bash
# Peak memory (maximum resident set size) for scanning a 12-megapixel JPEG (4000x3000, a phone
# photo's size): activate (each effort) beside zbarimg, ZXingReader 1.4 and zxing-cpp 3.1.1 (PyPI, the
# venv of compare-decoders.py; Python's own start and Pillow's loading included), measured by GNU time.
#   benchmarks/memory-12mp.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(scripts/release-build.sh activate activate-zxing-helper)
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
convert -size 4000x3000 plasma:wheat-tan \( SampleCodes/oauth-activation.png -resize 200% \) -gravity center -composite -quality 90 "$work/photo-12mp.jpg"
convert -size 4000x3000 plasma:wheat-tan -quality 90 "$work/nocode-12mp.jpg"
echo "images: 4000x3000 JPEG with a code ($(du -h "$work/photo-12mp.jpg" | cut -f1)), and one without (every pass runs)"
measure() {
  local name="$1"; shift
  /usr/bin/time -f "%M %e" -o "$work/time" "$@" > /dev/null 2>&1 || true
  read -r kib seconds < <(tail -1 "$work/time")  # GNU time writes "Command exited with non-zero status" first
  printf '%-28s peak RSS %7.1f MiB   %6.2f s\n' "$name" "$(echo "$kib / 1024" | bc -l)" "$seconds"
}
measure "activate scan (fast)" "$bin"/activate scan --effort fast "$work/photo-12mp.jpg"
measure "activate scan (normal)" "$bin"/activate scan "$work/photo-12mp.jpg"
measure "activate scan (thorough)" "$bin"/activate scan --effort thorough "$work/photo-12mp.jpg"
measure "zbarimg" zbarimg -q --raw --nodbus -Supca.enable -Supce.enable -Stest-inverted "$work/photo-12mp.jpg"
measure "ZXingReader" ZXingReader "$work/photo-12mp.jpg"
python="$(benchmarks/compare-decoders.py --bench-python)"
zxingcpp() { echo "$1" | "$python" benchmarks/zxingcpp-reader.py; }
export -f zxingcpp; export python
measure "zxing-cpp 3.1.1" bash -c 'zxingcpp "$0"' "$work/photo-12mp.jpg"
measure "no code: activate (normal)" "$bin"/activate scan "$work/nocode-12mp.jpg"
measure "no code: activate (thorough)" "$bin"/activate scan --effort thorough "$work/nocode-12mp.jpg"
measure "no code: zbarimg" zbarimg -q --raw --nodbus -Supca.enable -Supce.enable -Stest-inverted "$work/nocode-12mp.jpg"
measure "no code: ZXingReader" ZXingReader "$work/nocode-12mp.jpg"
measure "no code: zxing-cpp 3.1.1" bash -c 'zxingcpp "$0"' "$work/nocode-12mp.jpg"
# The zxing helper is a process of its own (not counted in activate's peak above): one request with
# the whole 12-megapixel image, as the second pass sends it.
python3 - "$work" <<'PY'
import struct, subprocess, sys
work = sys.argv[1]
raw = subprocess.run(["convert", f"{work}/nocode-12mp.jpg", "-colorspace", "gray", "-depth", "8", "gray:-"], capture_output=True, check=True).stdout
formats = sum(1 << bit for bit in (1, 2, 3, 4, 5, 6, 8, 9, 10, 13, 14, 15, 16))  # what activate asks zxing for
open(f"{work}/request.bin", "wb").write(b"AZX1" + struct.pack("<IIII", 4000, 3000, formats, 7) + raw)
PY
/usr/bin/time -f "%M %e" -o "$work/time" "$bin"/activate-zxing-helper < "$work/request.bin" > /dev/null
read -r kib seconds < <(tail -1 "$work/time")
printf '%-28s peak RSS %7.1f MiB   %6.2f s\n' "zxing helper, one 12 MP image" "$(echo "$kib / 1024" | bc -l)" "$seconds"
