#!/usr/bin/env bash
# Lays out an installation of imagepipe under ROOT with prefix PREFIX, for `make install` and
# `make deb`: the command, the Swift runtime it links (so it runs where no Swift toolchain is
# installed), its manual page and completion scripts made by the command itself, and the
# default plugin directory.
# usage: .ci/install-tree.sh BINARY ROOT PREFIX
set -euo pipefail
binary=$1 root=$2 prefix=$3
base="$root$prefix"
install -d "$base/bin" "$base/lib/imagepipe/swift" "$base/lib/imagepipe/plugins" "$base/share/man/man1" \
  "$base/share/bash-completion/completions" "$base/share/zsh/site-functions" "$base/share/fish/vendor_completions.d"
install -m 755 "$binary" "$base/bin/imagepipe"
# The Swift runtime libraries, wherever the toolchain keeps them; Debian has no package of them.
ldd "$binary" | awk '$3 ~ /\/swift\// { print $3 }' | while read -r library; do
  install -m 644 "$library" "$base/lib/imagepipe/swift/"
done
patchelf --set-rpath '$ORIGIN/../lib/imagepipe/swift' "$base/bin/imagepipe"
"$base/bin/imagepipe" man | gzip -9n > "$base/share/man/man1/imagepipe.1.gz"
"$base/bin/imagepipe" completions bash > "$base/share/bash-completion/completions/imagepipe"
"$base/bin/imagepipe" completions zsh > "$base/share/zsh/site-functions/_imagepipe"
"$base/bin/imagepipe" completions fish > "$base/share/fish/vendor_completions.d/imagepipe.fish"
