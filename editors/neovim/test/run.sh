#!/usr/bin/env bash
# Headless Neovim test of meshc-lsp: exits 0 only if the server reports E0302
# for a module whose env reads a secret.
#
#   MESHC_LSP=target/debug/meshc-lsp editors/neovim/test/run.sh
#
# Needs Neovim 0.7 or newer (`apt-get install -y neovim`). A stand-in server
# checks the harness itself:
#   MESHC_LSP=editors/neovim/test/mock_server.js editors/neovim/test/run.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [[ -z "${MESHC_LSP:-}" ]]; then
  echo "MESHC_LSP is not set: point it at the meshc-lsp binary" >&2
  exit 2
fi
if ! command -v nvim >/dev/null; then
  echo "nvim not found: apt-get install -y neovim" >&2
  exit 2
fi

# A private state directory, so the test neither reads nor writes the user's.
state="$(mktemp -d)"
trap 'rm -rf "$state"' EXIT
export XDG_STATE_HOME="$state" XDG_CACHE_HOME="$state" XDG_DATA_HOME="$state" XDG_CONFIG_HOME="$state"

# -u NONE: no user configuration; the test puts the plugin on the runtime path.
# The overall timeout guards against a server that never lets Neovim quit.
timeout 60 nvim --headless -u NONE -i NONE -n \
  -c "luafile $here/lsp_diagnostics.lua" </dev/null
