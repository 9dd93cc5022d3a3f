#!/usr/bin/env bash
# The release build as the Debian package ships it, in one folder, .build/shipped, that the package
# (make-deb.sh), `make release`, `make install` and the benchmarks share: release is built once,
# and the benchmarks measure the binary users install.
#
# The Swift runtime is linked in (--static-swift-stdlib), so the binaries depend only on Debian's
# libraries, with full RELRO (-z now) as Debian's hardening flags ask. Nothing is exported from
# the executables (--no-export-dynamic; the runtime's static link exports all their symbols, which
# no one looks up and which cost every start). The toolchain's lld links them, with the runtime's
# 152,000 relative relocations packed (-z pack-relative-relocs, DT_RELR, where glibc is 2.36 or later):
# 30 KB that the loader applies in a tight loop instead of 3.6 MB of RELA entries it reads one by
# one at every start (gold, the default linker, cannot pack them).
#
# A folder of its own: SwiftPM does not relink when only these flags change, so a release build
# made without them (a plain `swift build -c release`) must never be taken for this one, and when
# they change here, the products built with the old ones are removed so that they are linked again.
#
#   scripts/release-build.sh PRODUCT...    builds the products, then prints the folder they are in
set -euo pipefail
cd "$(dirname "$0")/.."
build=(swift build -c release --scratch-path .build/shipped --static-swift-stdlib -Xswiftc -use-ld=lld
       -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now -Xlinker --no-export-dynamic)
# Packed only where this machine's glibc reads them: a binary built on an older one (Ubuntu 22.04's
# 2.35) keeps its RELA entries and runs where it was built.
glibc=$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')
if [ "$(printf '%s\n' 2.36 "$glibc" | sort -V | head -1)" = 2.36 ]; then
  build+=(-Xlinker -z -Xlinker pack-relative-relocs)
fi
# What each product was last linked with, beside the folder: `link-flags.PRODUCT`.
for product in "$@"; do
  stamp=.build/shipped/link-flags.$product
  if [ -d .build/shipped ] && [ "$(cat "$stamp" 2>/dev/null)" != "${build[*]}" ]; then
    rm -f "$("${build[@]}" --show-bin-path)/$product"
  fi
  "${build[@]}" --product "$product" >&2
  printf '%s' "${build[*]}" > "$stamp"
done
"${build[@]}" --show-bin-path
