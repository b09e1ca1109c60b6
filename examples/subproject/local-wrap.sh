#!/bin/sh
# SPDX-License-Identifier: MIT
# local-wrap.sh SRC [EXAMPLE_DIR]: use the mockshim source tree SRC (a
# checkout: its tracked files) instead of the git URL, offline.  The
# tree goes into subprojects/packagecache/ as a tarball and
# subprojects/mockshim.wrap becomes a [wrap-file] for it with its
# sha256: meson unpacks it as it would a downloaded release.
set -eu
src=$(cd "$1" && pwd)
ex=$(cd "${2:-$(dirname "$0")}" && pwd)
cache=$ex/subprojects/packagecache
mkdir -p "$cache"
tarball=$cache/mockshim-local.tar.gz
if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1; then
	# the tracked files as they are in the work tree, edits included
	git -C "$src" ls-files -z --cached | tar -C "$src" --null -T - \
		--transform 's,^,mockshim-local/,' -czf "$tarball"
else
	tar -C "$(dirname "$src")" --exclude='./build*' \
		--transform "s,^$(basename "$src"),mockshim-local," -czf "$tarball" "$(basename "$src")"
fi
rm -rf "$ex/subprojects/mockshim-local"
hash=$(sha256sum "$tarball" | cut -d' ' -f1)
cat > "$ex/subprojects/mockshim.wrap" <<WRAP
# written by local-wrap.sh: mockshim from $src, offline
[wrap-file]
directory = mockshim-local
source_url = file://$tarball
source_filename = mockshim-local.tar.gz
source_hash = $hash

[provide]
program_names = mockrun
dependency_names = mockshim-driver, mockshim-handler
WRAP
echo "subprojects/mockshim.wrap: mockshim from $src"
