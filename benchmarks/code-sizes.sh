#!/usr/bin/env bash
# How large each kind of configuration code is for the same document: characters and the QR
# version `activate generate` picks at error-correction levels M and Q, with qrencode's version for
# the same text beside it (qrencode -l LEVEL, its own mode choice).
#
#   benchmarks/code-sizes.sh [DOCUMENT]     (default SampleCodes/fieldservice-configuration.json, 625 bytes)
set -euo pipefail
cd "$(dirname "$0")/.."
document=${1:-SampleCodes/fieldservice-configuration.json}
activate=${ACTIVATE:-.build/shipped/release/activate}
[ -x "$activate" ] || { echo "build first: scripts/release-build.sh activate" >&2; exit 1; }
keys=Tests/ActivationConfigurationTests/Fixtures/keys
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

version() {  # version LEVEL ARGS...: the QR version activate picks
  local level=$1; shift
  "$activate" generate "$@" --ec "$level" --format text -o "$work/code.txt" --force 2>&1 >/dev/null | sed -n 's/.*QR version \([0-9]*\)-.*/\1/p'
}
qrencode_version() {  # the version qrencode picks for the text at LEVEL (its own mode choice)
  local side; side=$(printf '%s' "$2" | qrencode -l "$1" -t ASCII -m 0 | head -1 | wc -c)
  echo $(( ( (side - 1) / 2 - 17) / 4 ))
}

printf '%-22s %6s %8s %8s %10s %10s\n' code characters "v at M" "v at Q" "qrencode M" "qrencode Q"
row() {  # row NAME GENERATE-ARGS...
  local name=$1; shift
  # The payload itself: what the code carries, read back from a PNG.
  "$activate" generate "$@" -o "$work/code.png" --force 2>/dev/null
  local text; text=$("$activate" scan --raw "$work/code.png")
  printf '%-22s %6d %8s %8s %10s %10s\n' "$name" "${#text}" "$(version M "$@")" "$(version Q "$@")" \
    "$(qrencode_version M "$text")" "$(qrencode_version Q "$text")"
}
row "unsigned JSON" --config "$document"
row "JWS RS256" --config "$document" --sign "$keys/rsa.pem"
row "JWS ES256" --config "$document" --sign "$keys/ec256.pem"
row "AC1 Ed25519" --config "$document" --compact --sign "$keys/ed25519.pem" --issuer acme-it
row "AC1 ES256" --config "$document" --compact --sign "$keys/ec256.pem" --issuer acme-it
echo "document: $document ($(wc -c <"$document") bytes)"
