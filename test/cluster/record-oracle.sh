#!/usr/bin/env bash
# Record the real kube-apiserver's answers for the validation oracle into
# test/validation/oracle-recording.json (test/cluster/record-oracle.ts does the work; see its header).
# Starts its own cluster on the e2e ports (as test/e2e/run.sh does), records, stops it. Serialize
# with the e2e suite: flock /tmp/ordinal-e2e.lock bash test/cluster/record-oracle.sh [out.json]
set -euo pipefail
cd "$(dirname "$0")/../.."
bash test/cluster/install.sh
export ORDINAL_CLUSTER_DIR="${ORDINAL_CLUSTER_DIR:-/tmp/ordinal-e2e-cluster}"
export ORDINAL_APISERVER_PORT="${ORDINAL_APISERVER_PORT:-26543}"
export ORDINAL_ETCD_PORT="${ORDINAL_ETCD_PORT:-23890}"
trap 'bash test/cluster/stop.sh >/dev/null 2>&1 || true' EXIT
bash test/cluster/start.sh >/dev/null
npx tsx test/cluster/record-oracle.ts "$@"
