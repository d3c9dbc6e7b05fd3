#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, in a folder of its own, from Debian's packages
# (munge, slurmctld, slurmd, slurm-client): no network beyond localhost, nothing in /etc changed.
#   cluster.sh start DIR   writes DIR/slurm.conf and a munge key, starts munged, slurmctld, slurmd;
#                          prints `export SLURM_CONF=…` for the caller to eval
#   cluster.sh stop DIR    stops them (by the pids they wrote)
set -euo pipefail
cmd="$1"; DIR="$2"
say() { echo "[slurm] $*" >&2; }

stop() {
  for name in slurmd slurmctld munged; do
    local pidfile="$DIR/$name.pid"
    [ -f "$pidfile" ] || continue
    local pid; pid="$(cat "$pidfile")"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  done
}

if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "usage: cluster.sh start|stop DIR" >&2; exit 2; }

mkdir -p "$DIR"/{state,spool,log,munge}
chmod 700 "$DIR/munge"
HOST="$(hostname -s)"
CPUS="$(nproc)"
MEM_MB="$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)"
# Ports of our own, away from a real Slurm's 6817/6818.
CTLD_PORT="${ATL_SLURMCTLD_PORT:-16817}"
SLURMD_PORT="${ATL_SLURMD_PORT:-16818}"

# munge: a key of our own, and a socket in DIR.
dd if=/dev/urandom bs=1 count=1024 of="$DIR/munge/munge.key" status=none
chmod 400 "$DIR/munge/munge.key"
munged --force --key-file="$DIR/munge/munge.key" --socket="$DIR/munge/munge.socket" \
  --pid-file="$DIR/munged.pid" --log-file="$DIR/log/munged.log" --seed-file="$DIR/munge/munge.seed"

cat >"$DIR/slurm.conf" <<CONF
ClusterName=atl
SlurmctldHost=$HOST
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobRequeue=1
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$HOST CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=atl Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$DIR/slurm.conf"
slurmctld -f "$SLURM_CONF" -i
slurmd -f "$SLURM_CONF"
for _ in $(seq 1 60); do
  if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
    say "cluster up: $(sinfo -h -o '%N %c CPUs %T')"
    echo "export SLURM_CONF='$SLURM_CONF'"
    exit 0
  fi
  sleep 0.5
done
say "the node did not come up; last lines of the logs:"
tail -n 20 "$DIR/log/slurmctld.log" "$DIR/log/slurmd.log" >&2 || true
stop
exit 1
