#!/usr/bin/env bash
# Installs the Debian packages activate needs, only those missing; uses sudo when not root.
#   scripts/setup.sh          libraries to build and run (zbar, qrencode, libpng, libdeflate, libjpeg-turbo)
#   scripts/setup.sh --test   also the peer tools the tests compare against, PostgreSQL (the tests
#                             start throw-away clusters of it), Chromium and its driver (the console
#                             test), glewlwyd (an identity provider the sign-in tests start), and a
#                             Python venv (.build/interop-venv) with the AC1 reference
#                             implementation's packages, Selenium and django-oauth-toolkit (the
#                             second identity provider)
#   scripts/setup.sh --bench  also the benchmark tools (hyperfine, wrk, ImageMagick)
#   scripts/setup.sh --deb    also what `make deb` uses (chrpath, lintian, dpkg-dev, systemd for
#                             systemd-analyze, man-db)
set -euo pipefail

packages=(pkg-config libkeyutils-dev libzbar-dev libqrencode-dev libpng-dev libdeflate-dev libturbojpeg0-dev libzxing-dev zlib1g-dev)
case "${1:-}" in
  --test) packages+=(zxing-cpp-tools zbar-tools qrencode age keyutils imagemagick python3-venv postgresql chromium chromium-driver glewlwyd strace) ;;
  --bench) packages+=(zxing-cpp-tools zbar-tools qrencode hyperfine wrk imagemagick curl time bc) ;;
  --deb) packages+=(chrpath lintian dpkg-dev systemd man-db) ;;
esac

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# A wrong pkg-config name only warns in SwiftPM; fail here instead, with the reason.
pkg-config --exists zbar libqrencode libpng libdeflate libturbojpeg zxing zlib libkeyutils || {
  echo "setup: pkg-config cannot find zbar, libqrencode, libpng, libdeflate, libturbojpeg, zxing, zlib or libkeyutils" >&2
  exit 1
}
command -v swift >/dev/null || { echo "setup: the Swift toolchain (swift) is not on PATH; install Swift 6 first" >&2; exit 1; }

# The interop tests cross-check AC1 codes with an independent Python implementation
# (Tests/Interop), which needs cbor2, base45 and cryptography from PyPI; the console test drives
# Chromium with Selenium (Tests/Browser); schemathesis checks the discovery service against its
# OpenAPI description (Tests/OpenAPI); the sign-in tests run django-oauth-toolkit (Tests/SignIn).
if [ "${1:-}" = "--test" ]; then
  cd "$(dirname "$0")/.."
  venv=.build/interop-venv
  if ! "$venv/bin/python" -c 'import cbor2, base45, cryptography, selenium, pyrage, pexpect, schemathesis, django, oauth2_provider' 2>/dev/null; then
    echo "setup: creating $venv for the AC1 interop, console and sign-in tests (pip install -r Tests/{Interop,Browser,OpenAPI,SignIn}/requirements.txt)" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r Tests/Interop/requirements.txt -r Tests/Browser/requirements.txt \
      -r Tests/OpenAPI/requirements.txt -r Tests/SignIn/requirements.txt || {
      echo "setup: pip could not install Tests/{Interop,Browser,OpenAPI,SignIn}/requirements.txt (is PyPI reachable?)" >&2
      exit 1
    }
  fi
fi
