#!/usr/bin/env bash
# Builds imagepipe_VERSION_ARCH.deb from a built command into OUTDIR, installing into /usr, with
# the Debian packages of the system libraries it links as its dependencies (found with dpkg -S,
# so the list follows what the binary really needs).
# usage: .ci/build-deb.sh BINARY OUTDIR
set -euo pipefail
binary=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$here/install-tree.sh" "$binary" "$work/root" /usr
version=$("$binary" --version | awk 'NR == 1 { print $2 }')
arch=$(dpkg --print-architecture)
# The libraries the command names itself (not what they pull in), as ldd finds them, and those
# it opens on first use (its --version names them), as the loader's cache finds them.
needed=$(readelf -d "$binary" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')
deferred=$("$binary" --version | sed -n 's/^libraries opened on first use: //p')
depends=$(for name in $needed $deferred; do
  library=$(ldd "$binary" | awk -v name="$name" '$1 == name { print $3 }')
  [ -n "$library" ] || library=$(/sbin/ldconfig -p | awk -v name="$name" '$1 == name { print $NF; exit }')
  case $library in /*/swift/*|"") continue ;; esac
  dpkg -S "$library" 2>/dev/null || dpkg -S "$(readlink -f "$library")" 2>/dev/null || true
done | cut -d: -f1 | sort -u | paste -sd, | sed 's/,/, /g')
install -d "$work/root/DEBIAN"
cat > "$work/root/DEBIAN/control" <<CONTROL
Package: imagepipe
Version: $version
Architecture: $arch
Maintainer: ImagePipe developers <dev@imagepipe.invalid>
Depends: $depends
Section: graphics
Priority: optional
Description: image pipelines over gdk-pixbuf
 imagepipe runs pipelines of image stages (resize, crop, round avatars, tone, filters)
 written in a small language, on one picture or whole folders, with an editor in the browser.
CONTROL
mkdir -p "$out"
dpkg-deb --root-owner-group --build "$work/root" "$out/imagepipe_${version}_${arch}.deb" >/dev/null
echo "$out/imagepipe_${version}_${arch}.deb"
