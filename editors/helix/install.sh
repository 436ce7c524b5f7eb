#!/usr/bin/env bash
# Installs mesh support into Helix's user configuration:
#   - appends languages.toml (with this clone's grammar path) to
#     ~/.config/helix/languages.toml, unless a `name = "mesh"` language is
#     already there;
#   - copies the queries to ~/.config/helix/runtime/queries/mesh/;
#   - builds the grammar with `hx --grammar build` when hx is on PATH.
# HELIX_CONFIG overrides ~/.config/helix.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
grammar="$(cd "$here/../../grammar/tree-sitter-mesh" && pwd)"
config="${HELIX_CONFIG:-${XDG_CONFIG_HOME:-$HOME/.config}/helix}"

mkdir -p "$config/runtime/queries/mesh"
cp "$here"/queries/mesh/*.scm "$config/runtime/queries/mesh/"
echo "queries copied to $config/runtime/queries/mesh/"

languages="$config/languages.toml"
if [[ -f "$languages" ]] && grep -Eq '^name *= *"mesh"' "$languages"; then
  echo "$languages already has a mesh language; left as it is"
else
  {
    [[ -s "$languages" ]] && echo
    sed "s|/path/to/meshc/grammar/tree-sitter-mesh|$grammar|" "$here/languages.toml"
  } >>"$languages"
  echo "mesh added to $languages (grammar at $grammar)"
fi

if command -v hx >/dev/null; then
  hx --grammar build
else
  echo "hx not on PATH: run 'hx --grammar build' once it is"
fi
