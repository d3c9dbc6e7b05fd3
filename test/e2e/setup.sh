#!/usr/bin/env bash
# Provisions what the real-VS-Code suite needs, outside the repository:
#   Node 24 (from the npm registry), code-server (built against Node 24), Chromium.
# Idempotent: every step is skipped when its result is already present.
# Prints the tools folder's layout as shell assignments on its last lines when
# called with --print-env, so run.sh can `eval` them.
set -euo pipefail

CODE_SERVER_VERSION=4.139.1
NODE_MAJOR=24
TOOLS="${ATL_E2E_TOOLS:-$HOME/.cache/agent-trace-lens/e2e-tools}"
NODE24_PKG="$TOOLS/node24/node_modules/node"
NODE24_BIN="$NODE24_PKG/bin/node"
CS_PREFIX="$TOOLS/cs"
CS_BIN="$CS_PREFIX/bin/code-server"
CHROMIUM="${ATL_CHROMIUM:-/usr/bin/chromium}"

log() { echo "[e2e setup] $*" >&2; }
mkdir -p "$TOOLS"

# --- Chromium and the Kerberos headers code-server's native module compiles against ---
need_apt=()
[ -x "$CHROMIUM" ] || need_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || [ -x "$CS_BIN" ] || need_apt+=(libkrb5-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    log "missing Debian packages: ${need_apt[*]}"
    log "install them first, e.g.: sudo apt-get update && sudo apt-get install -y ${need_apt[*]}"
    exit 1
  fi
  log "installing ${need_apt[*]} with apt-get"
  t0=$SECONDS
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >&2
  log "apt-get done in $((SECONDS - t0)) s"
fi

# --- Node 24: code-server 4.139 declares engines.node 24 and ships native modules for it ---
node24_ok() { [ -x "$NODE24_BIN" ] && "$NODE24_BIN" -v 2>/dev/null | grep -q "^v$NODE_MAJOR\."; }
if ! node24_ok; then
  log "installing node@$NODE_MAJOR into $TOOLS/node24"
  t0=$SECONDS
  mkdir -p "$TOOLS/node24"
  npm install --prefix "$TOOLS/node24" --no-audit --no-fund --no-save "node@$NODE_MAJOR" >&2
  node24_ok || { log "node@$NODE_MAJOR installed but $NODE24_BIN does not run"; exit 1; }
  log "node $("$NODE24_BIN" -v) ready in $((SECONDS - t0)) s"
fi
# The real Node lives in a platform sub-package (bin/node is a hard link to it); that folder
# has include/node, which node-gyp needs to build code-server's native modules for Node 24.
NODE24_HOME="$(ls -d "$NODE24_PKG"/node_modules/node-linux-* 2>/dev/null | head -n 1)"
[ -f "$NODE24_HOME/include/node/node.h" ] || { log "no Node $NODE_MAJOR headers under $NODE24_PKG/node_modules/node-linux-*"; exit 1; }

# --- code-server, installed with Node 24 first on PATH so its native modules match ---
cs_ok() { [ -x "$CS_BIN" ] && PATH="$(dirname "$NODE24_BIN"):$PATH" "$CS_BIN" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION"; }
if ! cs_ok; then
  log "installing code-server@$CODE_SERVER_VERSION into $CS_PREFIX (takes a few minutes)"
  t0=$SECONDS
  PATH="$(dirname "$NODE24_BIN"):$PATH" \
  npm_config_nodedir="$NODE24_HOME" \
    npm install -g --prefix "$CS_PREFIX" --no-audit --no-fund "code-server@$CODE_SERVER_VERSION" >&2
  cs_ok || { log "code-server installed but '$CS_BIN --version' fails"; exit 1; }
  log "code-server ready in $((SECONDS - t0)) s"
fi

if [ "${1:-}" = "--print-env" ]; then
  echo "ATL_NODE24_BIN='$NODE24_BIN'"
  echo "ATL_CODE_SERVER='$CS_BIN'"
  echo "ATL_CHROMIUM='$CHROMIUM'"
fi
log "tools ready in $TOOLS"
