#!/usr/bin/env bash
# README "Library", tried as a new user would: a package made from exactly the README's
# Package.swift and main.swift snippets, depending on this checkout by path (traits: []), built
# clean. It must fetch none of the network stacks; with the zxing helper installed (copied to a
# bin folder on PATH, as `make install` does, no environment variable) it must find a code in
# exactly the Micro QR and rotated fixtures `activate scan` reads, with the same symbology; without
# the helper it must say so instead of scanning with zbar alone in silence.
#
#   scripts/consumer-check.sh      (part of `make test`)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# SwiftPM names a path dependency after its folder: the README's `package: "activate"`.
ln -s "$(pwd)" "$work/activate"
consumer=$work/scan-and-check
mkdir -p "$consumer/Sources/scan-and-check" "$work/bin"

# The swift block after a marker comment in README.md.
snippet() {
  awk -v marker="$1" 'index($0, marker) { found = 1; next }
    found && /^```swift$/ { inside = 1; next } inside && /^```$/ { exit } inside { print }' README.md
}
snippet '<!-- consumer: Package.swift -->' >"$consumer/Package.swift"
snippet '<!-- compiled: SampleCodes/ScanAndCheck/main.swift -->' >"$consumer/Sources/scan-and-check/main.swift"
for file in "$consumer/Package.swift" "$consumer/Sources/scan-and-check/main.swift"; do
  [ -s "$file" ] || { echo "consumer-check: README.md has no snippet for $(basename "$file")" >&2; exit 1; }
done

echo "consumer-check: building the README's package (clean)" >&2
(cd "$consumer" && swift build >"$work/build.log" 2>&1) || { tail -30 "$work/build.log" >&2; exit 1; }
fetched=$(ls "$consumer/.build/checkouts" | tr '\n' ' ')
case "$fetched" in
  *nio*|*hummingbird*|*async-http-client*) echo "consumer-check: traits: [] still fetched the network stacks: $fetched" >&2; exit 1 ;;
esac
program=$consumer/.build/debug/scan-and-check

# The CLI and the helper of this checkout (built as `make test` builds everything, which has
# nothing left to do after it); the helper alone goes where `make install` puts it.
swift build --build-tests >/dev/null
bin=$(swift build --show-bin-path)
cp "$bin/activate-zxing-helper" "$work/bin/"
export PATH="$work/bin:/usr/local/bin:/usr/bin:/bin"
unset ACTIVATE_ZXING_HELPER

fixtures=Tests/ActivationImagingTests/Fixtures
failed=0 read=0 total=0
for image in "$fixtures"/corpus/microqrcode-1/*.png "$fixtures"/corpus/microqrcode-1/*.jpg "$fixtures"/rotated/*.png; do
  total=$((total + 1))
  # The CLI's "Symbology: text" line (one file: no name); the program's "path: Symbology: summary".
  cli=$("$bin/activate" scan "$image" 2>/dev/null | head -1 | sed -n "s|^\([A-Za-z0-9-]*\): .*|\1|p" || true)
  said=$("$program" "$image")
  case "$said" in *"not found"*) echo "consumer-check: the helper on PATH was not found: $said" >&2; exit 1 ;; esac
  found=$(printf '%s\n' "$said" | sed -n "s|^$image: \([A-Za-z0-9-]*\): .*|\1|p" | head -1)
  [ -n "$found" ] && read=$((read + 1))
  if [ "$found" != "$cli" ]; then
    echo "consumer-check: $image: the CLI reads \"${cli:-nothing}\", the README's program \"${found:-nothing}\" ($said)" >&2
    failed=1
  fi
done
echo "consumer-check: the README's program read $read of $total Micro QR and rotated images, as the CLI does" >&2
# The 9 Micro QR images and the 4 rotated ones.
[ "$read" -eq 13 ] || { echo "consumer-check: $read images read; expected 13" >&2; failed=1; }

# Without the helper: an explicit note, never a silent downgrade.
rm "$work/bin/activate-zxing-helper"
alone=$("$program" "$fixtures/corpus/microqrcode-1/M2-Alpha.png")
case "$alone" in
  "note: activate-zxing-helper not found"*) ;;
  *) echo "consumer-check: without the helper, no note: $alone" >&2; failed=1 ;;
esac
exit $failed
