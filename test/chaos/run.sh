#!/usr/bin/env bash
# npm run chaos [-- --seed N --minutes M]: build the server, start a control plane of its own
# (ports of docs/benchmarks.md's chaos run, apart from the e2e suite's) with an audit log of every
# request, run one seeded chaos run against it (test/chaos/run.ts), stop it. One run at a time:
# flock /tmp/ordinal-chaos.lock.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash test/cluster/install.sh
npm run build:node --silent
export ORDINAL_CLUSTER_DIR="${ORDINAL_CLUSTER_DIR:-/tmp/ordinal-chaos-cluster}"
export ORDINAL_APISERVER_PORT="${ORDINAL_APISERVER_PORT:-27443}"
export ORDINAL_ETCD_PORT="${ORDINAL_ETCD_PORT:-24790}"
export ORDINAL_ETCD_PEER_PORT="${ORDINAL_ETCD_PEER_PORT:-24800}"
export ORDINAL_AUDIT_LOG="${ORDINAL_AUDIT_LOG:-$ORDINAL_CLUSTER_DIR.audit.log}"
exec 9>/tmp/ordinal-chaos.lock
flock 9
rm -f "$ORDINAL_AUDIT_LOG"
rm -rf "$ORDINAL_CLUSTER_DIR.run"
trap 'bash test/cluster/stop.sh >/dev/null 2>&1 || true' EXIT
bash test/cluster/start.sh >/dev/null
npx tsx test/chaos/run.ts "$@"
