#!/usr/bin/env bash
# The README's test command runs this: installs what is missing, builds, runs every suite.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci --no-audit --no-fund
npm run build
npm run lint
npm run test:unit
# Shards on a real batch engine: a one-node Slurm cluster from Debian's packages (says SKIPPED, with
# the reason, where it cannot start).
bash test/slurm/run.sh
if [ "${ATL_SKIP_E2E:-}" = "1" ]; then
  echo "ATL_SKIP_E2E=1: the real-VS-Code suite was NOT run."
else
  bash test/e2e/run.sh
fi
