#!/usr/bin/env bash
# Headless Neovim test of the tree-sitter queries: builds the parser from the
# committed grammar/tree-sitter-mesh/src/parser.c with cc, loads it into
# Neovim, checks that the queries compile and capture as they should, and that
# opening a .mesh file with the plugin starts tree-sitter highlighting (drawn on
# the screen, gone when the highlighter stops).
#
#   editors/neovim/test/treesitter.sh
#
# Needs Neovim 0.7 or newer (`apt-get install -y neovim`) and a C compiler.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/../../../grammar/tree-sitter-mesh/src"

if ! command -v nvim >/dev/null; then
  echo "nvim not found: apt-get install -y neovim" >&2
  exit 2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export XDG_STATE_HOME="$work" XDG_CACHE_HOME="$work" XDG_DATA_HOME="$work" XDG_CONFIG_HOME="$work"

"${CC:-cc}" -O2 -shared -fPIC -std=c11 -I "$src" "$src/parser.c" -o "$work/mesh.so"
# Where a user's Neovim finds it: parser/mesh.so on the runtime path.
mkdir -p "$work/site/parser"
cp "$work/mesh.so" "$work/site/parser/mesh.so"

MESH_PARSER="$work/mesh.so" MESH_SITE="$work/site" timeout 60 nvim --headless -u NONE -i NONE -n \
  -c "luafile $here/treesitter.lua" </dev/null
