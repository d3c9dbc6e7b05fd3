#!/usr/bin/env bash
# Shards of a survey on a real batch engine: a one-node Slurm cluster on this machine (Debian's
# munge, slurmctld, slurmd; see cluster.sh) runs `sbatch --array=0-3` of survey.sbatch over a folder
# of corpus runs, one shard per task with --resume into its own output. One task is killed mid-way
# (SIGKILL, as the OOM killer or a preemption would) and requeued with `scontrol requeue`; then
# `survey merge` of the four outputs must print exactly the total of one unsharded run.
# When the cluster cannot start here, the test says SKIPPED with the reason (never "passed");
# ATL_SLURM_REQUIRED=1 turns that into a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO="$PWD"
say() { echo "[slurm] $*"; }
skip() {
  say "SKIPPED (not passed): $*"
  [ "${ATL_SLURM_REQUIRED:-}" = 1 ] && exit 1
  exit 0
}
fail() { say "FAILED: $*"; exit 1; }

# As root with apt-get (CI, a fresh machine) the packages are installed first, like the e2e tools.
[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && { bash test/slurm/setup.sh || say "could not install munge and Slurm"; }
for tool in munged slurmctld slurmd sbatch scontrol squeue; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (bash test/slurm/setup.sh installs Debian's munge and Slurm as root)"
done
[ -f dist/cli.js ] || fail "dist/cli.js is missing: run npm run build first"
SHARED="${ATL_SHARED:-$REPO/../shared}"
[ -d "$SHARED/corpus" ] || fail "no corpus at $SHARED/corpus"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/atl-slurm-XXXXXX")"
cleanup() {
  bash "$REPO/test/slurm/cluster.sh" stop "$TMP/cluster" || true
  if [ "${ATL_SLURM_KEEP:-}" = 1 ]; then say "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

# --- a folder of runs: copies of corpus runs in nested folders ---
RUNS="$TMP/runs"
COPIES="${ATL_SLURM_COPIES:-12}"
for c in $(seq 1 "$COPIES"); do
  for rel in mini-swe-agent/astropy__astropy-12907.traj.json mini-swe-agent/sphinx-doc__sphinx-9711.traj.json \
             swe-agent/marshmallow-code__marshmallow-1867.traj swe-agent/pydicom__pydicom-1458.traj \
             claude-code/crud.jsonl claude-code/compact.jsonl codex/crud.jsonl openhands-v0/basic.json \
             openhands-eval/output.jsonl; do
    mkdir -p "$RUNS/batch-$c/$(dirname "$rel")"
    cp "$SHARED/corpus/$rel" "$RUNS/batch-$c/$rel"
  done
done
say "$(find "$RUNS" -type f | wc -l) files under $RUNS"

# --- the reference: one unsharded run ---
node dist/cli.js stats "$RUNS" --json > "$TMP/whole.jsonl" 2>"$TMP/whole.err" || fail "the unsharded survey failed: $(cat "$TMP/whole.err")"

# --- the cluster ---
if ! env_line="$(bash test/slurm/cluster.sh start "$TMP/cluster" 2>"$TMP/cluster.err")"; then
  skip "the Slurm cluster did not start on this machine: $(tail -n 5 "$TMP/cluster.err" | tr '\n' ' ')"
fi
eval "$env_line"
cat "$TMP/cluster.err"

# --- the array job ---
JOBDIR="$TMP/job"
mkdir -p "$JOBDIR"/{out,logs,pids}
cd "$JOBDIR"
JOB="$(ATL_CLI="$REPO/dist/cli.js" RUNS="$RUNS" sbatch --parsable --export=ALL "$REPO/test/slurm/survey.sbatch")"
JOB="${JOB%%;*}"
say "submitted array job $JOB (tasks 0-3 = shards 1/4-4/4)"

# Kill shard 2 (task 1) once it has printed a few runs and before it finishes, then requeue it.
# A shard measures its dozen runs in a fifth of a second, faster than a poll can catch it, so the
# victim is held with SIGSTOP and let run in slices of 20 ms: it is stopped, not racing, whenever
# its output is read, and the SIGKILL lands mid-way on any machine.
VICTIM=2
OUT="out/shard-$VICTIM-of-4.jsonl"
PIDFILE="pids/shard-$VICTIM"
victim=""
for _ in $(seq 1 1200); do
  if [ -s "$PIDFILE" ]; then victim="$(cat "$PIDFILE")"; kill -STOP "$victim" 2>/dev/null || victim=""; break; fi
  sleep 0.05
done
[ -n "$victim" ] || fail "shard $VICTIM never started: $(cat logs/*.log 2>/dev/null | tail -n 5)"
killed=""
for _ in $(seq 1 3000); do
  if [ -f "$OUT" ] && [ "$(grep -c '"file"' "$OUT" || true)" -ge 2 ]; then
    if grep -q '"total"' "$OUT"; then fail "shard $VICTIM finished before it could be stopped"; fi
    kill -KILL "$victim" && killed=1
    break
  fi
  kill -CONT "$victim" 2>/dev/null || fail "shard $VICTIM ended before it printed two runs: $(tail -n 5 "logs/shard-$((VICTIM - 1)).log" 2>/dev/null)"
  sleep 0.02
  kill -STOP "$victim" 2>/dev/null || fail "shard $VICTIM ended between two looks at its output: $(tail -n 5 "$OUT" 2>/dev/null | cut -c 1-120)"
done
[ -n "$killed" ] || fail "shard $VICTIM never printed two runs: $(cat logs/*.log 2>/dev/null | tail -n 5)"
lines_at_kill="$(grep -c '"file"' "$OUT" || true)"
say "killed shard $VICTIM mid-way, after $lines_at_kill runs"
# The task ends FAILED; requeue it (it resumes from its own output).
for _ in $(seq 1 100); do
  state="$(scontrol show job "${JOB}_$((VICTIM - 1))" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 || true)"
  case "$state" in *FAILED*|*COMPLETED*|*CANCELLED*) break ;; esac
  sleep 0.2
done
say "task $((VICTIM - 1)) is ${state#JobState=}; requeueing it"
scontrol requeue "${JOB}_$((VICTIM - 1))"

# Wait for the whole array.
for _ in $(seq 1 3000); do
  [ -z "$(squeue -h -j "$JOB" 2>/dev/null)" ] && break
  sleep 0.2
done
[ -z "$(squeue -h -j "$JOB" 2>/dev/null)" ] || fail "the array job did not finish: $(squeue -j "$JOB")"
for i in 1 2 3 4; do
  grep -q '"total"' "out/shard-$i-of-4.jsonl" || fail "shard $i has no total line: $(tail -n 5 "logs/shard-$((i - 1)).log" 2>/dev/null)"
done
restarts="$(scontrol show job "${JOB}_$((VICTIM - 1))" 2>/dev/null | grep -o 'Restarts=[0-9]*' || echo 'Restarts=?')"
say "all four shards finished (task $((VICTIM - 1)): $restarts)"

# --- merge, and compare with the unsharded run ---
node "$REPO/dist/cli.js" survey merge out/shard-*-of-4.jsonl --json > merged.json 2>merge.err || fail "survey merge refused: $(cat merge.err)"
node - "$TMP/whole.jsonl" merged.json "$OUT" <<'JS' || fail "the merged total is not the unsharded total"
const fs = require('fs');
const [whole, merged, victim] = process.argv.slice(2);
const last = (f) => JSON.parse(fs.readFileSync(f, 'utf8').trim().split('\n').pop());
const a = last(whole).total, b = last(merged).total;
const same = JSON.stringify(a) === JSON.stringify(b);
console.log(`[slurm] unsharded: ${a.runs} runs, ${a.tokens} tokens, $${a.costModelled} modelled, $${a.costRecorded} recorded`);
console.log(`[slurm] merged:    ${b.runs} runs, ${b.tokens} tokens, $${b.costModelled} modelled, $${b.costRecorded} recorded`);
// The killed shard's output holds its first attempt's lines and the resumed attempt's, each run once.
const keys = fs.readFileSync(victim, 'utf8').split('\n').flatMap((l) => { try { const v = JSON.parse(l); return v.file && !v.skipped ? [`${v.file}#${v.run}`] : []; } catch { return []; } });
if (new Set(keys).size !== keys.length) { console.log('[slurm] a run of the killed shard was printed twice'); process.exit(1); }
const totals = fs.readFileSync(victim, 'utf8').split('\n').filter((l) => l.includes('"total"')).length;
console.log(`[slurm] killed shard: ${keys.length} runs, ${totals} total line(s), every run once`);
process.exit(same ? 0 : 1);
JS
say "PASSED: survey merge of 4 Slurm shards (one killed and requeued) equals the unsharded total exactly"
