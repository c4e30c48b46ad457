#!/usr/bin/env bash
# Stop the control plane started by start.sh from ${ORDINAL_CLUSTER_DIR:-/tmp/ordinal-cluster}:
# TERM each process from its pid file, KILL after a few seconds. Idempotent; exit 0 when
# nothing runs. Leaves the state dir (logs) in place; start.sh wipes it.
set -euo pipefail

DIR="${ORDINAL_CLUSTER_DIR:-/tmp/ordinal-cluster}"
GRACE="${ORDINAL_STOP_GRACE:-5}"

# Pid of a process we started, or nothing: the pid must be alive and its command line must
# mention the state dir (guards against pid reuse).
ours() {
  local f="$DIR/pids/$1.pid" pid
  [ -f "$f" ] || return 0
  pid="$(cat "$f" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  [ -r "/proc/$pid/cmdline" ] || return 0
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$DIR" || return 0
  echo "$pid"
}

# Alive and not a zombie.
running() { local st; st="$(ps -o stat= -p "$1" 2>/dev/null || true)"; [ -n "$st" ] && [[ "$st" != Z* ]]; }

# Controller manager first, etcd last.
for name in kube-controller-manager kube-apiserver etcd; do
  pid="$(ours "$name")"
  if [ -n "$pid" ]; then
    echo "[stop] $name (pid $pid): TERM"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq $(( GRACE * 10 ))); do
      running "$pid" || break
      sleep 0.1
    done
    if running "$pid"; then
      echo "[stop] $name (pid $pid): KILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
    fi
  fi
  rm -f "$DIR/pids/$name.pid"
done
exit 0
