#!/usr/bin/env bash
# Builds the Debian package: .build/deb/activate_<version>_<arch>.deb (`make deb`).
#
# Both programs come from the shipped release build (scripts/release-build.sh: the Swift runtime
# linked in, so the package depends only on Debian's libraries, which dpkg-shlibdeps finds). It holds:
#   /usr/bin/activate                              the tool
#   /usr/libexec/activate/activate-zxing-helper    the second decoding engine (found by activate)
#   /usr/share/man/man1/activate*.1.gz             a page per command (argument-parser's generate-manual)
#   bash, zsh and fish completions                 in Debian's places
#   /lib/systemd/system/activate-discovery.service and /etc/default/activate-discovery
#   /usr/share/doc/activate/                       README, the docs/ pages, copyright, changelog
# The service is not enabled: it wants its settings first (`systemctl enable --now activate-discovery`).
#
#   scripts/make-deb.sh            build, then check the package with lintian when it is installed
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/activate/Activate.swift)
arch=$(dpkg --print-architecture)
out=.build/deb
root=$out/activate_${version}_${arch}
package=$out/activate_${version}_${arch}.deb

echo "deb: building activate $version ($arch), release, Swift runtime linked in" >&2
bin=$(scripts/release-build.sh activate activate-zxing-helper)

rm -rf "$root" && mkdir -p "$root/DEBIAN"
install -D -m 0755 "$bin/activate" "$root/usr/bin/activate"
install -D -m 0755 "$bin/activate-zxing-helper" "$root/usr/libexec/activate/activate-zxing-helper"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/activate" \
    "$root/usr/libexec/activate/activate-zxing-helper"
# SwiftPM records the toolchain's library folder as RUNPATH even with the runtime linked in.
chrpath -d "$root/usr/bin/activate" "$root/usr/libexec/activate/activate-zxing-helper" >/dev/null

# Man pages: one per command and subcommand, as argument-parser's generate-manual writes them
# (from the debug build, which `make test` has made already, rather than a second release build);
# named as Debian names them, `activate-discovery-codes.1`.
rm -rf .build/plugins/GenerateManual/outputs/activate
swift package --disable-sandbox plugin generate-manual --configuration debug --multi-page --authors "the activate developers" >&2
install -d "$root/usr/share/man/man1"
for page in .build/plugins/GenerateManual/outputs/activate/*.1; do
    name=$(basename "$page" .1)
    name=${name//./-}
    # The NAME line names the page as man and whatis look it up; the synopsis keeps the command
    # as it is typed; blank lines (paragraphs of the help text) become mdoc paragraphs.
    command=$(sed -n 's/^\.Nm "\(.*\)"$/\1/p; s/^\.Nm \([^ ]*\)$/\1/p' "$page" | head -1)
    sed -e '/^\.Xr activate/s/\./-/g' -e 's/^-Xr /.Xr /' -e '/^\.Dt /s/\./-/g' -e 's/^-Dt /.Dt /' \
        -e "0,/^\.Nm .*/s//.Nm $name/" -e "s/^\.Nm\$/.Nm \"$command\"/" -e 's/^$/.Pp/' "$page" \
        | gzip -9n >"$root/usr/share/man/man1/$name.1.gz"
done

# Completions, from the tool itself.
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"
# A completion file is sourced, not run: no #! line.
"$root/usr/bin/activate" --generate-completion-script bash | sed '1{/^#!/d}' >"$root/usr/share/bash-completion/completions/activate"
"$root/usr/bin/activate" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_activate"
"$root/usr/bin/activate" --generate-completion-script fish >"$root/usr/share/fish/vendor_completions.d/activate.fish"

# The discovery service.
install -D -m 0644 packaging/systemd/activate-discovery.service "$root/lib/systemd/system/activate-discovery.service"
install -D -m 0644 packaging/systemd/activate-discovery.default "$root/etc/default/activate-discovery"
echo /etc/default/activate-discovery >"$root/DEBIAN/conffiles"

# Documentation.
doc=$root/usr/share/doc/activate
install -d "$doc"
gzip -9n <README.md >"$doc/README.md.gz"
install -d "$doc/docs"
for page in docs/*.md; do gzip -9n <"$page" >"$doc/docs/$(basename "$page").gz"; done
install -m 0644 packaging/debian/copyright "$doc/copyright"
gzip -9n <packaging/debian/changelog >"$doc/changelog.gz"  # a native package: changelog, not changelog.Debian
install -D -m 0644 packaging/debian/lintian-overrides "$root/usr/share/lintian/overrides/activate"
find "$root" -type d -exec chmod 0755 {} +
find "$root/usr/share" "$root/lib" "$root/etc" -type f -exec chmod 0644 {} +
find "$root" -exec touch -h -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)" {} +  # reproducible times

# Dependencies: the shared libraries the two programs link, as Debian's packages provide them.
shlibs=$out/shlibs && rm -rf "$shlibs" && mkdir -p "$shlibs/debian"
printf 'Source: activate\n\nPackage: activate\nArchitecture: any\n' >"$shlibs/debian/control"
depends=$(cd "$shlibs" && dpkg-shlibdeps -O -e"$OLDPWD/$root/usr/bin/activate" -e"$OLDPWD/$root/usr/libexec/activate/activate-zxing-helper" \
    2>/dev/null | sed -n 's/^shlibs:Depends=//p')
# A glibc version the programs need without naming a symbol of it escapes dpkg-shlibdeps (1.21):
# GLIBC_ABI_DT_RELR, which the packed relocations ask for (scripts/release-build.sh). libc6's
# symbols file says which release brought each such version; the dependency is raised to it.
libc_symbols=$(dpkg-query --control-path libc6 symbols)
for node in $(readelf -V --wide "$root/usr/bin/activate" "$root/usr/libexec/activate/activate-zxing-helper" |
    sed -n 's/.*Name: \(GLIBC_ABI_[A-Z_]*\) .*/\1/p' | sort -u); do
  needed=$(awk -v node="$node@$node" '$1 == node { print $2 }' "$libc_symbols")
  [ -n "$needed" ] || { echo "deb: libc6's symbols file does not name $node" >&2; exit 1; }
  current=$(sed -n 's/.*libc6 (>= \([^)]*\)).*/\1/p' <<<"$depends")
  if [ -z "$current" ] || dpkg --compare-versions "$current" lt "$needed"; then
    depends=$(sed "s/libc6 (>= [^)]*)/libc6 (>= $needed)/" <<<"$depends")
  fi
done
# libzbar is opened when a scan first needs it (Sources/CZBar), so dpkg-shlibdeps cannot see it:
# its dependency comes from its own package's shlibs file, as dpkg-shlibdeps would take it.
zbar=$(awk '$1 == "libzbar" && $2 == "0" { $1 = $2 = ""; sub(/^ +/, ""); print }' \
    "$(dpkg-query --control-path libzbar0 shlibs)")
[ -n "$zbar" ] || { echo "deb: no shlibs entry for libzbar.so.0 (is libzbar0 installed?)" >&2; exit 1; }
depends="$depends, $zbar"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<CONTROL
Package: activate
Version: $version
Architecture: $arch
Maintainer: activate developers <maintainers@users.noreply.a-seed-e8f507a1.example>
Installed-Size: $size
Depends: $depends
Section: utils
Priority: optional
Description: QR and barcode activation of enterprise mobile apps
 activate reads activation codes (QR, Micro QR, Data Matrix, Aztec and more)
 from images and configuration files, checks them against a security policy,
 and turns them into typed onboarding configuration for SAP-style mobile apps.
 It generates plain, signed and compact signed activation codes, keeps the
 configuration in a passcode-protected secure store, and runs a discovery
 service that hands out configuration by e-mail domain or one-time code.
CONTROL
(cd "$root" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums" "$root/DEBIAN/conffiles"

dpkg-deb --root-owner-group -Zxz --build "$root" "$package" >&2
echo "$package"
if command -v lintian >/dev/null; then
    lintian --info --display-info "$package" >&2 || true
fi
