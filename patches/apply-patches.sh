#!/usr/bin/env bash
# Extracts from an upstream sources jar the files that patches/<dir>/*.patch change, and applies
# the patches to them. Run by the build (generate-sources); fails with the patch and hunk that no
# longer apply.
set -euo pipefail
sources_jar="$1" patch_dir="$2" out="$3"
rm -rf "$out"
mkdir -p "$out"
shopt -s nullglob
patches=("$patch_dir"/*.patch)
if [ ${#patches[@]} -eq 0 ]; then
  exit 0
fi
mapfile -t files < <(sed -n 's#^+++ b/\(.*\)$#\1#p' "${patches[@]}" | sort -u)
(cd "$out" && jar xf "$sources_jar" "${files[@]}")
for f in "${files[@]}"; do
  if [ ! -f "$out/$f" ]; then
    echo "patches: $f, named by a patch in $patch_dir, is not in $(basename "$sources_jar")" >&2
    exit 1
  fi
done
for p in "${patches[@]}"; do
  if ! msg=$(patch -d "$out" -p1 --forward --batch --no-backup-if-mismatch < "$p" 2>&1); then
    echo "patches: $(basename "$p") no longer applies to $(basename "$sources_jar"):" >&2
    echo "$msg" >&2
    echo "patches: rebase it on the new upstream sources (see patches/README.md)" >&2
    exit 1
  fi
  echo "patches: applied $(basename "$p")"
done
