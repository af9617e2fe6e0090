#!/usr/bin/env bash
# A one-node Slurm cluster on this machine's loopback, everything under one folder: its own
# munged (key, socket, pid and log files), slurmctld and slurmd (slurm.conf, state and spool
# folders, logs, pid files). Used by the cluster:slurm-array test (tests/cluster/slurm_test.sh)
# to run scripts/cluster/fits2asdf.sbatch for real; also handy to try a job script by hand.
# Needs Debian's slurm-wlm and munge (scripts/install-deps.sh test) and root: slurmd runs the
# jobs as the user who submits them. No cgroups and no systemd: proctrack/linuxproc, task/none.
# A munged or Slurm already running on the machine is left alone (other socket, other ports).
#
# Usage: local-slurm.sh start WORKDIR    write WORKDIR/slurm.conf, start the three daemons, wait
#                                        until the node is idle, print the environment to use
#                                        (`export SLURM_CONF=WORKDIR/slurm.conf`)
#        local-slurm.sh stop WORKDIR     cancel the cluster's jobs, stop its daemons and wait
#                                        until none of its processes is left
#        local-slurm.sh status WORKDIR   print which daemons run and the node's state
# Environment: LOCAL_SLURM_PORT      slurmctld's port; slurmd takes the next one (default: the
#                                    first free pair from 16817 up)
#              LOCAL_SLURM_CPUS      the node's CPUs (default: nproc)
#              LOCAL_SLURM_KILL_WAIT seconds between SIGTERM and SIGKILL when a job is cancelled
#                                    or reaches its time limit (default 30)
# Exit status: 0 done, 1 a daemon did not start or stop (its log is printed), 2 usage.
set -euo pipefail

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
say() { echo "local-slurm: $*" >&2; }
die() { say "$*"; exit 1; }

[ $# -eq 2 ] || { usage >&2; exit 2; }
action=$1
work=$2
case "$action" in start|stop|status) ;; *) usage >&2; exit 2 ;; esac
mkdir -p "$work"
work=$(cd "$work" && pwd)
conf=$work/slurm.conf
socket=$work/run/munge.socket
export SLURM_CONF=$conf
# Marks every process this cluster's daemons start (slurmstepd inherits slurmd's environment),
# so that `stop` finds them without touching anything else on the machine.
marker="LOCAL_SLURM_WORKDIR=$work"

pid_of() {  # pid_of FILE: the live process whose pid FILE holds, else nothing
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# The processes (pids) that carry this cluster's marker in their environment.
marked_processes() {
  local environ pid
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/}
    pid=${pid%/environ}
    [ "$pid" = $$ ] && continue
    { tr '\0' '\n' <"$environ"; } 2>/dev/null | grep -xF "$marker" >/dev/null && echo "$pid"
  done
  return 0
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

show_log() { [ -s "$1" ] && { say "the end of $1:"; tail -n 20 "$1" >&2; }; return 0; }

start() {
  local cmd
  for cmd in munged munge unmunge slurmctld slurmd sinfo scontrol; do
    command -v "$cmd" >/dev/null || [ -x "/usr/sbin/$cmd" ] ||
      die "$cmd not found (Debian: apt-get install slurm-wlm munge)"
  done
  [ "$(id -u)" -eq 0 ] || die "slurmd must run as root here (it runs the jobs as their users)"
  if [ -n "$(pid_of "$work/run/slurmctld.pid")" ]; then
    say "already running in $work"
    echo "export SLURM_CONF=$conf"
    return 0
  fi
  PATH=$PATH:/usr/sbin:/sbin

  local port=${LOCAL_SLURM_PORT:-}
  if [ -z "$port" ]; then
    port=16817
    while ! { port_free "$port" && port_free $((port + 1)); }; do
      port=$((port + 2))
      [ $port -lt 17817 ] || die "no free pair of ports in 16817-17817 (set LOCAL_SLURM_PORT)"
    done
  fi
  local host cpus memory
  host=$(hostname -s 2>/dev/null || hostname)
  [ -n "$host" ] || die "this machine has no host name"
  cpus=${LOCAL_SLURM_CPUS:-$(nproc)}
  # The node offers half of the machine's memory (MB): a job asking for more is refused.
  memory=$(awk '/^MemTotal:/ {print int($2 / 2048)}' /proc/meminfo)

  rm -rf "$work/munge" "$work/state" "$work/spool" "$work/run" "$work/log"
  mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/run" "$work/log"
  # munged wants its key readable by it alone, and its socket's folder open to all (the socket
  # itself is how clients are told apart).
  chmod 700 "$work/munge"
  chmod 755 "$work/run"
  dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
  chmod 600 "$work/munge/munge.key"

  # Slurm 22.05's slurmd loads a cgroup plugin whatever the tracking plugins are, and its
  # default (autodetect) fails where no cgroup file system is mounted (a chroot, some
  # containers). Naming the v1 plugin skips the detection; with proctrack/linuxproc and
  # task/none it never creates a cgroup.
  printf '%s\n' "# Written by scripts/cluster/local-slurm.sh: no detection, no cgroup made." \
    "CgroupPlugin=cgroup/v1" >"$work/cgroup.conf"
  cat >"$conf" <<EOF
# A one-node cluster on loopback, written by scripts/cluster/local-slurm.sh (Slurm 22.05).
ClusterName=fitsasdf-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups: processes are tracked through /proc, tasks are not bound to CPUs.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# Quick: schedule as soon as a job is submitted or ends, bring the node back by itself.
SchedulerType=sched/builtin
SchedulerParameters=sched_min_interval=0
ReturnToService=2
SlurmdParameters=config_overrides
MessageTimeout=10
SlurmdTimeout=60
InactiveLimit=0
MinJobAge=300
KillWait=${LOCAL_SLURM_KILL_WAIT:-30}
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

  env "$marker" munged --socket="$socket" --key-file="$work/munge/munge.key" \
    --pid-file="$work/munge/munged.pid" --log-file="$work/log/munged.log" \
    --seed-file="$work/munge/munged.seed" ||
    { show_log "$work/log/munged.log"; die "munged did not start"; }
  munge --socket="$socket" -n </dev/null | unmunge --socket="$socket" >/dev/null ||
    { show_log "$work/log/munged.log"; die "munged does not answer on $socket"; }

  env "$marker" slurmctld -c || { show_log "$work/log/slurmctld.log"; die "slurmctld did not start"; }
  env "$marker" slurmd -N "$host" || { show_log "$work/log/slurmd.log"; die "slurmd did not start"; }

  # Wait for the node to register and be idle.
  local state=""
  for _ in $(seq 1 300); do
    state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.2
  done
  if [ "$state" != idle ]; then
    show_log "$work/log/slurmctld.log"
    show_log "$work/log/slurmd.log"
    die "the node $host is '${state:-unknown}' after 60 s, not idle"
  fi
  say "node $host ($cpus CPUs, $memory MB) idle; slurmctld on 127.0.0.1:$port, slurmd :$((port + 1))"
  echo "export SLURM_CONF=$conf"
}

# stop_pids PID...: SIGTERM, then wait up to 30 s for them all, then SIGKILL what is left.
stop_pids() {
  local pid left
  kill -TERM "$@" 2>/dev/null || true
  for _ in $(seq 1 150); do
    left=()
    for pid in "$@"; do
      kill -0 "$pid" 2>/dev/null && left+=("$pid")
    done
    [ ${#left[@]} -eq 0 ] && return 0
    sleep 0.2
  done
  for pid in "${left[@]}"; do
    say "$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") ($pid) still runs 30 s after SIGTERM: SIGKILL"
  done
  kill -KILL "${left[@]}" 2>/dev/null || true
}

stop() {
  PATH=$PATH:/usr/sbin:/sbin
  local pid name
  if [ -n "$(pid_of "$work/run/slurmctld.pid")" ] && command -v scancel >/dev/null; then
    # Cancel every job, and give them the time a cancelled job has to stop cleanly.
    local jobs
    jobs=$(squeue -h -o %A 2>/dev/null || true)
    if [ -n "$jobs" ]; then
      # shellcheck disable=SC2086
      scancel $jobs 2>/dev/null || true
      for _ in $(seq 1 200); do
        [ -z "$(squeue -h -t running,completing,pending -o %A 2>/dev/null)" ] && break
        sleep 0.2
      done
    fi
  fi
  local daemons=()
  for name in slurmd slurmctld; do
    pid=$(pid_of "$work/run/$name.pid") && daemons+=("$pid")
  done
  [ ${#daemons[@]} -eq 0 ] || stop_pids "${daemons[@]}"
  # munged last: the Slurm daemons talk to each other until they end.
  pid=$(pid_of "$work/munge/munged.pid") && stop_pids "$pid"
  # What is left of jobs the daemons started (slurmstepd, a job's processes).
  local left
  left=$(marked_processes)
  # shellcheck disable=SC2086
  [ -z "$left" ] || stop_pids $left
  left=$(marked_processes)
  [ -z "$left" ] || die "still running: $left"
  say "stopped (nothing of $work runs)"
}

status() {
  local name pid running=0
  for name in munge/munged run/slurmctld run/slurmd; do
    if pid=$(pid_of "$work/$name.pid"); then
      echo "${name#*/}: running ($pid)"
      running=1
    else
      echo "${name#*/}: not running"
    fi
  done
  if [ $running = 1 ] && [ -f "$conf" ]; then
    PATH=$PATH:/usr/sbin:/sbin
    sinfo -N -h -o 'node %N: %T, %c CPUs, %m MB' 2>/dev/null || true
    echo "export SLURM_CONF=$conf"
  fi
}

"$action"
