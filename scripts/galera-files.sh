#!/usr/bin/env bash
# galera-files.sh TEST_DIR DIST_TEST_DIR: the compiled e2e files of the Galera pass, one a line. A test file
# joins the pass by a line of its own that starts `// @galera` (so a rename keeps it in, and a new file opts
# in where it is written). Fails, naming the cause, when no file is marked or a marked file was not compiled:
# either would silently shrink the pass.
set -uo pipefail
src="$1" dist="$2"
mapfile -t marked < <(grep -l -E '^// @galera( |:|$)' "$src"/*.e2e-spec.ts 2>/dev/null | sort)
if [ ${#marked[@]} -eq 0 ]; then
  echo "galera: no file in $src is marked '// @galera'" >&2
  exit 1
fi
missing=0
for file in "${marked[@]}"; do
  compiled="$dist/$(basename "$file" .ts).js"
  if [ -f "$compiled" ]; then echo "$compiled"; else echo "galera: $file is marked but $compiled does not exist" >&2; missing=1; fi
done
exit $missing
