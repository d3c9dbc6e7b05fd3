#!/usr/bin/env bash
# Installs Debian's Slurm and munge for test/slurm/run.sh when they are missing (as root; CI runs
# as root with Debian's mirrors). Idempotent.
set -euo pipefail
missing=()
for tool in munged slurmctld slurmd sbatch; do command -v "$tool" >/dev/null || missing+=("$tool"); done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "[slurm setup] missing ${missing[*]}; install them with: apt-get install -y munge slurmctld slurmd slurm-client" >&2
  exit 1
fi
echo "[slurm setup] installing munge slurmctld slurmd slurm-client with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# policy-rc.d may refuse to start the services on install; the test starts its own.
apt-get install -y -qq --no-install-recommends munge slurmctld slurmd slurm-client >&2
