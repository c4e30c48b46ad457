#!/usr/bin/env bash
# npm run e2e: install/build the real control plane (cached), start it on 127.0.0.1 with the
# webhook JWT in its admission config, run the e2e suite against it, stop it.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash test/cluster/install.sh
# The servers run the built JavaScript, as `npm start` does (src/cli/bin.mjs picks it when fresh).
npm run build:node --silent
export ORDINAL_CLUSTER_DIR="${ORDINAL_CLUSTER_DIR:-/tmp/ordinal-e2e-cluster}"
export ORDINAL_APISERVER_PORT="${ORDINAL_APISERVER_PORT:-26543}"
export ORDINAL_ETCD_PORT="${ORDINAL_ETCD_PORT:-23890}"
# The apiserver's audit log of writes (shards.e2e.test.ts: no namespace written by two replicas at once).
export ORDINAL_AUDIT_LOG="${ORDINAL_AUDIT_LOG:-$ORDINAL_CLUSTER_DIR.audit.log}"
export ORDINAL_AUDIT_VERBS="${ORDINAL_AUDIT_VERBS:-create,update,patch,delete,deletecollection}"
rm -f "$ORDINAL_AUDIT_LOG"
KEYS="$ORDINAL_CLUSTER_DIR.keys"
rm -rf "$KEYS" && mkdir -p "$KEYS"
# Keys and the admission JWT the apiserver presents to our webhooks (ordinal token).
# The apiserver reads it from a tokenFile (re-read about every minute: rotation without restart);
# 127.0.0.1:28444 has a token file of its own for the rotation test.
node src/cli/bin.mjs token --generate-keys "$KEYS" > "$KEYS/token"
cp "$KEYS/token" "$KEYS/rotation-token"
export ORDINAL_WEBHOOK_TOKEN_FILE="$KEYS/token"
export ORDINAL_WEBHOOK_HOSTS="127.0.0.1:28443,127.0.0.1:28787,127.0.0.1:28444=$KEYS/rotation-token"
export ORDINAL_WEBHOOK_KEYS="$KEYS"
# The webhook servers' TLS certificate (the apiserver only calls https URLs).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -subj "/CN=ordinal-webhooks" -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
  -keyout "$KEYS/tls.key" -out "$KEYS/tls.crt" 2>/dev/null
# The built server and CLI (what the container image runs): deploy.e2e.test.ts runs them.
npm run build:node
trap 'bash test/cluster/stop.sh >/dev/null 2>&1 || true' EXIT
bash test/cluster/start.sh >/dev/null
npx vitest run --config test/e2e/vitest.config.ts "$@"
