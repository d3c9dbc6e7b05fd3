#!/usr/bin/env bash
# The real-VS-Code suite, offline:
#   1. packages the extension, installs the .vsix into a fresh code-server and drives its
#      workbench in headless Chromium (test/e2e/driver.ts, scenarios in scenarios.ts);
#   2. runs the @vscode/test-electron checks (test/electron/suite) inside code-server's
#      extension host (test/e2e/hostSuite.ts), since VS Code itself cannot be downloaded here;
#   3. Restricted Mode (test/e2e/restrictedMode.ts): a third code-server WITH workspace trust, on a
#      folder whose settings ask for what an untrusted folder must not get.
# Exits non-zero when anything fails. Screenshots: test/e2e/artifacts/.
#   ATL_E2E_VSIX=FILE   test this .vsix instead of packaging the repository
#   ATL_E2E_KEEP=1      keep the temporary folder (code-server logs, profiles) for a look
#   ATL_E2E_ONLY=A,B    run only the UI scenarios whose names contain A or B (later ones may need
#                       the earlier ones), and skip step 2; `restricted-mode` among them runs step 3
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO="$PWD"
t_start=$SECONDS
say() { echo "[e2e] $*"; }

# --- tools (Node 24, code-server, Chromium) ---
t0=$SECONDS
eval "$(bash test/e2e/setup.sh --print-env)"
say "tools checked in $((SECONDS - t0)) s"

# --- the extension under test, and the drivers ---
VSIX="${ATL_E2E_VSIX:-}"
if [ -z "$VSIX" ]; then
  t0=$SECONDS
  # vsce prompts when it lacks something; with no terminal that prompt must fail, not hang.
  npm run package </dev/null
  VSIX="$REPO/dist/agent-trace-lens.vsix"
  say "packaged $VSIX in $((SECONDS - t0)) s"
fi
[ -f "$VSIX" ] || { say "no .vsix at $VSIX"; exit 1; }

# Compiles one of our tsconfigs. tsc still emits when files outside the suite have type errors
# (other work in progress); only errors in the suite's own folders stop the run.
compile() {
  local out rc=0
  out="$(npx tsc -p "$1" 2>&1)" || rc=$?
  [ "$rc" = 0 ] && return 0
  if grep -E "^test/(e2e|electron|helpers)/" <<<"$out"; then say "$1 does not compile"; exit 1; fi
  say "note: type errors outside the suite (not ours to fix here):"; grep -E "error TS" <<<"$out" | head -n 5 | sed 's/^/    /'
}
compile test/e2e/tsconfig.json
compile test/electron/tsconfig.json
[ -f out/test/e2e/driver.js ] && [ -f out/test/electron/suite/index.js ] || { say "the drivers did not compile"; exit 1; }

# --- private code-servers: profile, config and extensions in one temp folder ---
TMP="$(mktemp -d "${TMPDIR:-/tmp}/atl-e2e-XXXXXX")"
CS_PID=""
TRUST_ARGS=(--disable-workspace-trust)
stop_code_server() {
  [ -n "$CS_PID" ] || return 0
  if kill -0 "$CS_PID" 2>/dev/null; then
    # Started as a session leader: its process group holds the extension host and helpers too.
    kill -TERM -- "-$CS_PID" 2>/dev/null || kill -TERM "$CS_PID" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$CS_PID" 2>/dev/null || break; sleep 0.5; done
  fi
  kill -KILL -- "-$CS_PID" 2>/dev/null || true
  CS_PID=""
}
cleanup() {
  stop_code_server
  if [ "${ATL_E2E_KEEP:-}" = "1" ]; then say "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export XDG_CONFIG_HOME="$TMP/config" XDG_DATA_HOME="$TMP/data" XDG_CACHE_HOME="$TMP/cache"
CS_ENTRY="$(readlink -f "$ATL_CODE_SERVER")"
NODE24_DIR="$(dirname "$ATL_NODE24_BIN")"
code_server() { PATH="$NODE24_DIR:$PATH" "$ATL_NODE24_BIN" "$CS_ENTRY" "$@"; }

# new_profile NAME: a user-data dir with seeded settings, an empty extensions dir, a workspace.
new_profile() {
  local dir="$TMP/$1"
  mkdir -p "$dir/user-data/User" "$dir/extensions" "$dir/workspace"
  cat >"$dir/user-data/User/settings.json" <<'JSON'
{
  "workbench.startupEditor": "none",
  "workbench.colorTheme": "Default Dark Modern",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "workbench.tree.enableStickyScroll": false,
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "update.mode": "none",
  "chat.disableAIFeatures": true,
  "window.commandCenter": false,
  "agentTraceLens.tokens.model": "gpt-4o"
}
JSON
  echo "$dir"
}

# start_code_server PROFILE_DIR [extra code-server args]: sets CS_PID and URL.
start_code_server() {
  local dir="$1"; shift
  local port
  port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  setsid bash -c 'PATH="$1:$PATH"; shift; exec "$@"' _ "$NODE24_DIR" \
    "$ATL_NODE24_BIN" "$CS_ENTRY" \
    --bind-addr "127.0.0.1:$port" --auth none \
    --disable-telemetry --disable-update-check "${TRUST_ARGS[@]}" \
    --user-data-dir "$dir/user-data" --extensions-dir "$dir/extensions" \
    --ignore-last-opened "$@" "$dir/workspace" >"$dir/code-server.log" 2>&1 &
  CS_PID=$!
  URL="http://127.0.0.1:$port"
  for i in $(seq 1 120); do
    curl -fsS "$URL/healthz" >/dev/null 2>&1 && break
    kill -0 "$CS_PID" 2>/dev/null || { cat "$dir/code-server.log"; say "code-server exited early"; exit 1; }
    [ "$i" = 120 ] && { cat "$dir/code-server.log"; say "code-server never answered $URL/healthz"; exit 1; }
    sleep 0.5
  done
  say "code-server $CS_PID listening on $URL"
}

show_log_on_failure() {
  [ "$1" = 0 ] && return 0
  say "code-server log (last 40 lines):"; tail -n 40 "$2/code-server.log" | sed 's/^/    /'
}

# --- 1. the packaged .vsix, driven through the workbench UI ---
UI="$(new_profile ui)"
code_server --user-data-dir "$UI/user-data" --extensions-dir "$UI/extensions" --install-extension "$VSIX" >"$UI/install.log" 2>&1 \
  || { cat "$UI/install.log"; say "installing $VSIX failed"; exit 1; }
say "installed $(basename "$VSIX") into a fresh extensions folder"
ui_rc=0
# ATL_E2E_ONLY naming only the Restricted Mode phase leaves the UI suite nothing to run.
ui_only="$(tr ',' '\n' <<<"${ATL_E2E_ONLY:-}" | grep -vx 'restricted-mode' | paste -sd, - || true)"
if [ -n "${ATL_E2E_ONLY:-}" ] && [ -z "$ui_only" ]; then
  say "ATL_E2E_ONLY=$ATL_E2E_ONLY: UI scenarios skipped"
else
start_code_server "$UI"
# README screenshots are refreshed only on request (ATL_UPDATE_SCREENSHOTS=1): a test run leaves
# the committed files alone; every run's pictures are in test/e2e/artifacts.
driver_args=()
[ "${ATL_UPDATE_SCREENSHOTS:-}" = "1" ] && driver_args=(--screenshots "$REPO/media/screenshots")
[ -n "${ATL_E2E_ONLY:-}" ] && driver_args+=(--only "$ui_only")
node out/test/e2e/driver.js --url "$URL" --workspace "$UI/workspace" --chromium "$ATL_CHROMIUM" \
  --profile "$TMP/chromium-ui" --artifacts "$REPO/test/e2e/artifacts" "${driver_args[@]}" \
  --user-settings "$UI/user-data/User/settings.json" || ui_rc=$?
show_log_on_failure "$ui_rc" "$UI"
stop_code_server
fi

# --- 3. Restricted Mode: workspace trust on, the folder untrusted, its settings asking for too much ---
restricted_rc=0
if [ -z "${ATL_E2E_ONLY:-}" ] || tr ',' '\n' <<<"$ATL_E2E_ONLY" | grep -qx 'restricted-mode'; then
  t0=$SECONDS
  RM="$(new_profile restricted)"
  code_server --user-data-dir "$RM/user-data" --extensions-dir "$RM/extensions" --install-extension "$VSIX" >"$RM/install.log" 2>&1 \
    || { cat "$RM/install.log"; say "installing $VSIX failed"; exit 1; }
  # Trust on and no start-up question: an untrusted folder opens straight into Restricted Mode.
  node -e 'const fs=require("fs"),f=process.argv[1],s=JSON.parse(fs.readFileSync(f,"utf8"));
    Object.assign(s,{"security.workspace.trust.enabled":true,"security.workspace.trust.startupPrompt":"never",
      "security.workspace.trust.untrustedFiles":"open","agentTraceLens.maxFileSizeMB":4096});
    fs.writeFileSync(f,JSON.stringify(s,null,2))' "$RM/user-data/User/settings.json"
  TRUST_ARGS=()
  start_code_server "$RM"
  rm_args=()
  [ "${ATL_UPDATE_SCREENSHOTS:-}" = "1" ] && rm_args=(--screenshots "$REPO/media/screenshots")
  node out/test/e2e/restrictedMode.js --url "$URL" --workspace "$RM/workspace" --chromium "$ATL_CHROMIUM" \
    --profile "$TMP/chromium-restricted" --artifacts "$REPO/test/e2e/artifacts" \
    --user-settings "$RM/user-data/User/settings.json" "${rm_args[@]}" || restricted_rc=$?
  show_log_on_failure "$restricted_rc" "$RM"
  stop_code_server
  TRUST_ARGS=(--disable-workspace-trust)
  say "Restricted Mode phase took $((SECONDS - t0)) s"
fi

if [ -n "${ATL_E2E_ONLY:-}" ]; then
  say "ATL_E2E_ONLY is set: extension-host checks skipped"
  exit $(( ui_rc != 0 || restricted_rc != 0 ))
fi

# --- 2. the extension-host checks, with the repository as the development extension ---
HOST="$(new_profile host)"
start_code_server "$HOST" --vscode-option enable-smoke-test-driver
host_rc=0
node out/test/e2e/hostSuite.js --url "$URL" --workspace "$HOST/workspace" --chromium "$ATL_CHROMIUM" || host_rc=$?
show_log_on_failure "$host_rc" "$HOST"
stop_code_server

say "whole e2e run took $((SECONDS - t_start)) s"
[ "$ui_rc" = 0 ] && [ "$host_rc" = 0 ] && [ "$restricted_rc" = 0 ]
