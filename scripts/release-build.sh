#!/usr/bin/env bash
# The release build as the Debian package ships it, in one folder, .build/shipped, that the package
# (make-deb.sh), `make release`, `make install` and the benchmarks share: release is built once,
# and the benchmarks measure the binary users install.
#
# The Swift runtime is linked in (--static-swift-stdlib), so the binaries depend only on Debian's
# libraries, with full RELRO (-z now) as Debian's hardening flags ask. Nothing is exported from
# the executables (--no-export-dynamic; the runtime's static link exports all their symbols, which
# no one looks up and which cost every start). A folder of its own:
# SwiftPM does not relink when only these flags change, so a release build made without them
# (a plain `swift build -c release`) must never be taken for this one.
#
#   scripts/release-build.sh PRODUCT...    builds the products, then prints the folder they are in
set -euo pipefail
cd "$(dirname "$0")/.."
build=(swift build -c release --scratch-path .build/shipped --static-swift-stdlib
       -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now -Xlinker --no-export-dynamic)
for product in "$@"; do
  "${build[@]}" --product "$product" >&2
done
"${build[@]}" --show-bin-path
