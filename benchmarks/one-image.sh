#!/usr/bin/env bash
# One image per process, as scripts, file managers and CI jobs scan: the Debian package's activate
# (installed into a folder with dpkg-deb -x, as dpkg lays it out: the stripped binary, its helper in
# ../libexec/activate) against ZXingReader 1.4 and zbarimg, side by side under hyperfine
# (-N, 5 warm-ups, RUNS runs each, 30 by default):
#   the sample code (SampleCodes/oauth-activation.png), the phone photo (SampleCodes/phone-photo.jpg),
#   a 1×1 image (one value: no pass runs), a 64×64 image with a square and no code (every pass
#   runs, libzbar loads), and `--version`;
# then the installed size of the package and of the two peers' packages.
#
#   benchmarks/one-image.sh [RUNS]          (make bench-one; builds the package first)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
for tool in hyperfine ZXingReader zbarimg convert dpkg-deb; do
  command -v "$tool" >/dev/null || { echo "one-image: $tool is not installed (scripts/setup.sh --bench)" >&2; exit 1; }
done
package=$(scripts/make-deb.sh 2>/dev/null)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dpkg-deb -x "$package" "$work/root"
activate=$work/root/usr/bin/activate
convert -size 1x1 xc:white "$work/1x1.png"
convert -size 64x64 xc:white -fill black -draw "rectangle 10,10 30,30" "$work/no-code.png"
# zbarimg as a user runs it on one image: quiet, raw, no D-Bus.
zbarimg=(zbarimg -q --raw --nodbus)

compare() {  # compare NAME IMAGE
  echo "== $1"
  hyperfine -N -w 5 -r "$runs" -i --style basic --export-json "$work/$1.json" \
    -n activate "$activate scan --raw $2" -n ZXingReader "ZXingReader $2" -n zbarimg "${zbarimg[*]} $2" |
    grep -E "^(Benchmark|  Time)"
  python3 - "$work/$1.json" <<'PYTHON'
import json, sys
results = {r["command"]: r["mean"] * 1000 for r in json.load(open(sys.argv[1]))["results"]}
a = results["activate"]
print("   activate %.1f ms: %.2fx ZXingReader (%.1f ms), %.2fx zbarimg (%.1f ms)" % (
    a, a / results["ZXingReader"], results["ZXingReader"], a / results["zbarimg"], results["zbarimg"]))
PYTHON
}
compare sample SampleCodes/oauth-activation.png
compare phone-photo SampleCodes/phone-photo.jpg
compare 1x1 "$work/1x1.png"
compare no-code "$work/no-code.png"
echo "== --version"
hyperfine -N -w 5 -r "$runs" --style basic -n "activate --version" "$activate --version" \
  -n "zbarimg --version" "zbarimg --version" | grep -E "^(Benchmark|  Time)"

installed() { dpkg-query -W -f='${Installed-Size}' "$1" 2>/dev/null || echo "?"; }
echo "== installed size"
echo "   activate $(dpkg-deb -f "$package" Installed-Size) KiB (usr/bin/activate $(($(stat -c %s "$activate") / 1024)) KiB)," \
  "zbar-tools $(installed zbar-tools) KiB, zxing-cpp-tools $(installed zxing-cpp-tools) KiB"
