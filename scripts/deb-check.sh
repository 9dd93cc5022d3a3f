#!/usr/bin/env bash
# The Debian package as an administrator meets it (`make deb-check`, run by CI): builds it (make-deb.sh,
# which also runs lintian), checks that lintian reports no error or warning, installs it with
# dpkg, then, with nothing but /usr/bin and /bin on PATH (no Swift toolchain):
#   activate --version, a scan of the sample code, a generated code read back (by both engines, and
#   by zbar alone: libzbar is loaded at run time), the zxing helper found,
#   `man activate-scan`, the bash completion loaded, the systemd unit verified and rated by
#   `systemd-analyze security` (exposure at most 2.0),
# and removes it again (dpkg --purge): nothing of it may be left but the documented state folder.
# Needs root (or sudo) to install; installs what it uses with scripts/setup.sh --deb.
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
fail() { echo "deb-check: $*" >&2; exit 1; }

scripts/setup.sh --deb
package=$(scripts/make-deb.sh 2>.build/deb-build.log) || { tail -30 .build/deb-build.log >&2; fail "make-deb.sh failed"; }
if grep -E '^(E|W): ' .build/deb-build.log; then fail "lintian reports the errors or warnings above"; fi
echo "deb-check: $package: lintian reports no error or warning" >&2

# Every glibc version node the programs need (symbols' and version-only ones such as the packed
# relocations' GLIBC_ABI_DT_RELR) is covered by the libc6 the package depends on.
unpacked=$(mktemp -d) && dpkg-deb -x "$package" "$unpacked"
libc_min=$(dpkg-deb -f "$package" Depends | sed -n 's/.*libc6 (>= \([^)]*\)).*/\1/p')
for node in $(readelf -V --wide "$unpacked/usr/bin/activate" "$unpacked/usr/libexec/activate/activate-zxing-helper" |
    sed -n 's/.*Name: \(GLIBC_[A-Z0-9_.]*\) .*/\1/p' | sort -u); do
  since=$(awk -v node="$node" '$1 ~ ("@" node "$") { print $2; exit }' "$(dpkg-query --control-path libc6 symbols)")
  [ -z "$since" ] || dpkg --compare-versions "$libc_min" ge "$since" ||
    fail "the programs need $node (libc6 $since), the package depends on libc6 (>= $libc_min)"
done
rm -rf "$unpacked"

if dpkg-query -W -f='${Status}' activate 2>/dev/null | grep -q "install ok"; then fail "activate is installed already; remove it first"; fi
$sudo dpkg -i "$package" >/dev/null
trap '$sudo dpkg --purge activate >/dev/null 2>&1 || true' EXIT
work=$(mktemp -d)
run() { env -i PATH=/usr/bin:/bin HOME="$work" "$@"; }

[ "$(run activate --version)" = "$(dpkg-deb -f "$package" Version)" ] || fail "activate --version"
linked=$(run ldd /usr/bin/activate)
grep -qi swift <<<"$linked" && fail "/usr/bin/activate links a Swift library at run time"
# Output is captured before it is searched: `grep -q` stops reading early, which pipefail would count.
scanned=$(run activate scan SampleCodes/oauth-activation.png)
grep -q "You will be connected to: mobile-demo.example.hana.ondemand.com" <<<"$scanned" || fail "activate scan of the sample"
verbose=$(run activate scan --verbose SampleCodes/phone-photo.jpg 2>&1)
grep -q "zxing" <<<"$verbose" || fail "the zxing helper was not found"
run activate generate 'https://mobile.example.com' --output "$work/code.png" 2>/dev/null
[ "$(run activate scan --raw "$work/code.png")" = "https://mobile.example.com" ] || fail "generate, then scan"
# zbar alone: libzbar is opened when its first pass runs, through the package's Depends.
[ "$(run activate scan --raw --effort fast "$work/code.png")" = "https://mobile.example.com" ] || fail "scan with zbar"
page=$(run man -P cat activate-scan 2>/dev/null)
grep -q "activate-scan" <<<"$page" || fail "man activate-scan"
page=$(run man -P cat activate-discovery-codes-create 2>/dev/null)
grep -q "activate discovery codes create" <<<"$page" || fail "man activate-discovery-codes-create"
bash -c 'source /usr/share/bash-completion/completions/activate && complete -p activate' >/dev/null || fail "bash completion"
[ -s /usr/share/zsh/vendor-completions/_activate ] && [ -s /usr/share/fish/vendor_completions.d/activate.fish ] || fail "zsh or fish completion"
systemd-analyze verify /lib/systemd/system/activate-discovery.service || fail "systemd-analyze verify"
exposure=$(systemd-analyze security --offline=yes activate-discovery.service 2>/dev/null | sed -n 's/.*exposure level for activate-discovery.service: \([0-9.]*\).*/\1/p')
awk -v e="$exposure" 'BEGIN { exit !(e != "" && e <= 2.0) }' || fail "systemd-analyze security rates the unit $exposure (at most 2.0 wanted)"
echo "deb-check: installed; version, scan, generate, zbar, zxing helper, man pages, completions, unit verified (exposure $exposure)" >&2

files=$(dpkg -L activate | grep -v '^/\.$')
$sudo dpkg --purge activate >/dev/null
trap - EXIT
left=$(for file in $files; do [ -f "$file" ] && echo "$file"; done || true)
[ -z "$left" ] || fail "left behind after dpkg --purge: $left"
rm -rf "$work"
echo "deb-check: removed; nothing left behind" >&2
