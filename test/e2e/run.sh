#!/usr/bin/env bash
# npm run e2e: install/build the real control plane (cached), start it on 127.0.0.1 with the
# webhook JWT in its admission config, run the e2e suite against it, stop it.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash test/cluster/install.sh
export ORDINAL_CLUSTER_DIR="${ORDINAL_CLUSTER_DIR:-/tmp/ordinal-e2e-cluster}"
export ORDINAL_APISERVER_PORT="${ORDINAL_APISERVER_PORT:-26543}"
export ORDINAL_ETCD_PORT="${ORDINAL_ETCD_PORT:-23890}"
KEYS="$ORDINAL_CLUSTER_DIR.keys"
rm -rf "$KEYS" && mkdir -p "$KEYS"
# Keys and the admission JWT the apiserver presents to our webhooks (ordinal token).
node src/node/bin.mjs token --generate-keys "$KEYS" > "$KEYS/token"
export ORDINAL_WEBHOOK_TOKEN="$(cat "$KEYS/token")"
export ORDINAL_WEBHOOK_KEYS="$KEYS"
# The webhook servers' TLS certificate (the apiserver only calls https URLs).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -subj "/CN=ordinal-webhooks" -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
  -keyout "$KEYS/tls.key" -out "$KEYS/tls.crt" 2>/dev/null
trap 'bash test/cluster/stop.sh >/dev/null 2>&1 || true' EXIT
bash test/cluster/start.sh >/dev/null
npx vitest run --config test/e2e/vitest.config.ts "$@"
