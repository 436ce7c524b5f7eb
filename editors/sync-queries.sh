#!/usr/bin/env bash
# Copies the tree-sitter queries of grammar/tree-sitter-mesh/queries to the
# editors that read them. `--check` changes nothing and exits 1 when a copy
# differs (the grammar crate's tests check the same).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
queries="$here/../grammar/tree-sitter-mesh/queries"
check=false
[[ "${1:-}" == "--check" ]] && check=true

status=0
copy() { # copy FILE DIR
  local from="$queries/$1" to="$here/$2/$1"
  if $check; then
    if ! cmp -s "$from" "$to"; then
      echo "differs: ${to#"$here"/} (run editors/sync-queries.sh)" >&2
      status=1
    fi
  else
    mkdir -p "$here/$2"
    cp "$from" "$to"
  fi
}

for file in highlights.scm locals.scm folds.scm; do
  copy "$file" neovim/queries/mesh
done
# Helix reads no folds query.
for file in highlights.scm locals.scm; do
  copy "$file" helix/queries/mesh
done
exit $status
