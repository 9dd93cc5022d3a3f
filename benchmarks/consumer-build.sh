#!/usr/bin/env bash
# A package that uses only ActivationConfiguration (read a document, check it with the policy),
# built clean against this checkout twice: depending on activate as it comes (default traits: the
# discovery client and server, so SwiftNIO, AsyncHTTPClient and Hummingbird are fetched), and with
# `traits: []` as README "Library" advises. Prints, for each: packages fetched, build folder size,
# clean build time.
#
#   benchmarks/consumer-build.sh        (needs the packages resolvable, as for `swift build`)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# SwiftPM names a path dependency after its folder: the consumer says package: "activate".
ln -s "$(pwd)" "$work/activate"

echo "cores: $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for variant in default-traits no-traits; do
  consumer=$work/$variant
  mkdir -p "$consumer/Sources/config-check"
  dependency='.package(path: "../activate")'
  [ "$variant" = no-traits ] && dependency='.package(path: "../activate", traits: [])'
  cat >"$consumer/Package.swift" <<MANIFEST
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "config-check",
    platforms: [.macOS(.v14)],
    dependencies: [$dependency],
    targets: [.executableTarget(name: "config-check", dependencies: [.product(name: "ActivationConfiguration", package: "activate")])]
)
MANIFEST
  cat >"$consumer/Sources/config-check/main.swift" <<'SWIFT'
import ActivationConfiguration

let recognizer = PayloadRecognizer(policy: SecurityPolicy(allowedHosts: SecurityPolicy.sapCloudHosts))
for path in CommandLine.arguments.dropFirst() {
    do {
        let payload = try recognizer.recognize(bytes: try FileIO.read(path, limit: 1 << 20), source: path)
        print("\(path): \(payload.document.map { "you will be connected to \($0.host)" } ?? payload.summary)")
    } catch let error as ConfigurationError {
        print("\(path): rejected (\(error.code)): \(error.reason)")
    }
}
SWIFT
  start=$(date +%s.%N)
  (cd "$consumer" && swift build >"$work/$variant.log" 2>&1) || { tail -20 "$work/$variant.log" >&2; exit 1; }
  end=$(date +%s.%N)
  "$consumer/.build/debug/config-check" SampleCodes/fieldservice-configuration.json >/dev/null
  packages=$(ls "$consumer/.build/checkouts" | wc -l)
  printf '%-15s %2d packages fetched (%s), build folder %4d MB, clean debug build %.0f s\n' "$variant:" "$packages" \
    "$(ls "$consumer/.build/checkouts" | tr '\n' ' ' | sed 's/ $//' | cut -c1-60)" "$(du -sm "$consumer/.build" | cut -f1)" "$(echo "$end - $start" | bc -l)"
done
