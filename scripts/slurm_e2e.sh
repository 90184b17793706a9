#!/usr/bin/env bash
# End-to-end test of `envcheck fleet slurm` against a real single-node Slurm
# cluster on localhost (issue 15): installs Debian's slurm-wlm and munge when
# srun is missing (needs root and apt), writes a minimal slurm.conf for this
# host, starts munged, slurmctld and slurmd, runs `envcheck fleet slurm` and
# `envcheck fleet report`, and checks the result. Prints "slurm_e2e: PASS".
#
#   sudo scripts/slurm_e2e.sh            # PYTHON=/path/to/python with envcheck
#   SLURM_E2E_STOP=1 scripts/slurm_e2e.sh   # stop the daemons it started afterwards
set -euo pipefail

cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-$PWD/.venv/bin/python}"
[ -x "$PYTHON" ] || PYTHON="$(command -v python3)"
WORK="${SLURM_E2E_DIR:-$(mktemp -d /tmp/slurm-e2e.XXXXXX)}"
CONF_DIR=/etc/slurm
HOST="$(hostname -s)"
STARTED=()

say() { echo "slurm_e2e: $*"; }
fail() { say "FAIL: $*"; for f in /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }; done; exit 1; }

cleanup() {
  if [ "${SLURM_E2E_STOP:-0}" = 1 ]; then
    for pidfile in "${STARTED[@]:-}"; do
      [ -n "$pidfile" ] && [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
    done
  fi
}
trap cleanup EXIT

# 1. Install.
if ! command -v srun >/dev/null || ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  [ "$(id -u)" = 0 ] || fail "srun is not installed and this is not root (apt-get install slurm-wlm munge)"
  say "installing slurm-wlm and munge"
  export DEBIAN_FRONTEND=noninteractive
  timeout 600 apt-get update -qq
  timeout 900 apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi
[ "$(id -u)" = 0 ] || fail "starting slurmd needs root"

# 2. munge: a key, a run directory, the daemon.
mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
if [ ! -s /etc/munge/munge.key ]; then
  if command -v mungekey >/dev/null; then mungekey --create --keyfile=/etc/munge/munge.key --force
  else dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null; fi
fi
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
chmod 0700 /etc/munge; chmod 0400 /etc/munge/munge.key; chmod 0755 /run/munge
if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
  say "starting munged"
  runuser -u munge -- /usr/sbin/munged || fail "munged did not start"
  STARTED+=(/run/munge/munged.pid)
  sleep 1
  munge -n </dev/null | unmunge >/dev/null || fail "munge does not work"
fi

# 3. A one-node cluster on this host.
CPUS="$(nproc)"
MEM_MB="$(awk '/MemTotal/ {print int($2/1024/2)}' /proc/meminfo)"
mkdir -p "$CONF_DIR" /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm
cat >"$CONF_DIR/slurm.conf" <<EOF
# Written by envcheck scripts/slurm_e2e.sh: a single-node test cluster.
ClusterName=envcheck-e2e
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
ReturnToService=2
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=e2e Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
# No cgroup.conf: slurmd 22.05 autodetects the cgroup version (it has no
# "disabled" plugin); proctrack/linuxproc and task/none keep jobs out of cgroups.

if ! scontrol ping 2>/dev/null | grep -q UP; then
  say "starting slurmctld"
  slurmctld -i || fail "slurmctld did not start"
  STARTED+=(/run/slurmctld.pid)
fi
if ! pgrep -x slurmd >/dev/null; then
  say "starting slurmd"
  slurmd -N "$HOST" || fail "slurmd did not start"
  STARTED+=(/run/slurmd.pid)
fi
for _ in $(seq 1 30); do
  state="$(sinfo -h -N -n "$HOST" -o %t 2>/dev/null || true)"
  case "$state" in
    idle*|mix*|alloc*) break ;;
    down*|drain*) scontrol update nodename="$HOST" state=resume 2>/dev/null || true ;;
  esac
  sleep 1
done
case "$state" in idle*|mix*|alloc*) say "node $HOST is $state" ;; *) fail "node $HOST is '${state:-unknown}', not idle" ;; esac

# 4. The recipe, as the README gives it.
say "envcheck fleet slurm --nodes 1 --python $PYTHON"
"$PYTHON" -m envcheck fleet slurm --nodes 1 --python "$PYTHON" --timeout 180 -o "$WORK/fleet.jsonl"
set +e
"$PYTHON" -m envcheck fleet report "$WORK/fleet.jsonl" --json >"$WORK/report.json"
code=$?
"$PYTHON" -m envcheck fleet report "$WORK/fleet.jsonl" >"$WORK/report.txt"
set -e
[ "$code" = 0 ] || [ "$code" = 1 ] || fail "fleet report exited $code"
# A node whose Python is missing: reported as failed, not fatal.
"$PYTHON" -m envcheck fleet slurm --nodes 1 --python /nonexistent/python --timeout 120 -o "$WORK/broken.jsonl" || true

"$PYTHON" - "$WORK" "$HOST" <<'EOF'
import json, sys
work, host = sys.argv[1], sys.argv[2]
recs = [json.loads(l) for l in open(f"{work}/fleet.jsonl")]
assert len(recs) == 1, recs
r = recs[0]
assert r["node"] == host, (r["node"], host)
assert r["status"] == "ok", r
assert r.get("job_id", "").isdigit(), r
rep = json.load(open(f"{work}/report.json"))
assert rep["summary"]["nodes"] == 1 and rep["summary"]["judged"] == 1, rep["summary"]
assert rep["problems"] == [], rep["problems"]
assert rep["stacks"][0]["nodes"] == [host]
broken = [json.loads(l) for l in open(f"{work}/broken.jsonl")]
assert [(b["node"], b["status"]) for b in broken] == [(host, "failed")], broken
print("slurm_e2e: checked", work)
EOF
say "PASS"
