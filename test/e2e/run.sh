#!/usr/bin/env bash
# npm run e2e: install/build the real control plane (cached), start it on 127.0.0.1 with the
# webhook JWT in its admission config, run the e2e suite against it, stop it.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash test/cluster/install.sh
export ORDINAL_CLUSTER_DIR="${ORDINAL_CLUSTER_DIR:-/tmp/ordinal-e2e-cluster}"
export ORDINAL_APISERVER_PORT="${ORDINAL_APISERVER_PORT:-26543}"
export ORDINAL_ETCD_PORT="${ORDINAL_ETCD_PORT:-23890}"
mkdir -p "$ORDINAL_CLUSTER_DIR.keys"
# Keys and the admission JWT the apiserver presents to our webhooks.
npx tsx test/e2e/make-webhook-token.ts "$ORDINAL_CLUSTER_DIR.keys"
export ORDINAL_WEBHOOK_TOKEN="$(cat "$ORDINAL_CLUSTER_DIR.keys/token")"
export ORDINAL_WEBHOOK_KEYS="$ORDINAL_CLUSTER_DIR.keys"
trap 'bash test/cluster/stop.sh >/dev/null 2>&1 || true' EXIT
bash test/cluster/start.sh >/dev/null
npx vitest run --config test/e2e/vitest.config.ts "$@"
