#!/usr/bin/env bash
# Start a throw-away Kubernetes control plane on 127.0.0.1: etcd + kube-apiserver +
# kube-controller-manager (binaries from install.sh). State lives in
# ${ORDINAL_CLUSTER_DIR:-/tmp/ordinal-cluster} and is wiped on every start; a cluster already
# running from that directory is stopped first. Prints the path of the env file at the end.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${ORDINAL_KUBE_CACHE:-$HOME/.cache/ordinal-kube}"
BIN="$CACHE/bin"
DIR="${ORDINAL_CLUSTER_DIR:-/tmp/ordinal-cluster}"
ETCD_PORT="${ORDINAL_ETCD_PORT:-23790}"
ETCD_PEER_PORT="${ORDINAL_ETCD_PEER_PORT:-23800}"
API_PORT="${ORDINAL_APISERVER_PORT:-26443}"
WEBHOOK_HOSTS="${ORDINAL_WEBHOOK_HOSTS:-127.0.0.1:28443,127.0.0.1:28787}"
# pvc-protection removes the kubernetes.io/pvc-protection finalizer that admission puts on every
# PVC; without it deleted PVCs (and so their namespaces) stay Terminating forever.
KCM_CONTROLLERS="${ORDINAL_KCM_CONTROLLERS:-serviceaccount-token,serviceaccount,garbagecollector,namespace,pvc-protection,disruption}"
TIMEOUT="${ORDINAL_START_TIMEOUT:-60}"
VERBOSITY="${ORDINAL_KUBE_V:-0}"   # klog -v for apiserver and controller-manager

log() { echo "[start] $(date +%H:%M:%S) $*" >&2; }
# On failure: message, tail of every log, stop what was started, exit 1.
die() {
  echo "[start] ERROR: $*" >&2
  for f in "$DIR"/logs/*.log; do
    [ -f "$f" ] || continue
    echo "----- tail of $f -----" >&2
    tail -n 25 "$f" >&2
  done
  ORDINAL_CLUSTER_DIR="$DIR" "$HERE/stop.sh" >&2 || true
  exit 1
}

# --- preconditions --------------------------------------------------------------------------
for b in kube-apiserver kube-controller-manager; do
  [ -x "$BIN/$b" ] || { echo "[start] ERROR: $BIN/$b missing: run test/cluster/install.sh first" >&2; exit 1; }
done
for c in etcd kubectl openssl jq curl; do
  command -v "$c" >/dev/null || { echo "[start] ERROR: $c not found: run test/cluster/install.sh first" >&2; exit 1; }
done

# Stop a previous cluster from this state dir, then wipe it.
ORDINAL_CLUSTER_DIR="$DIR" "$HERE/stop.sh" >&2
for p in "$ETCD_PORT" "$ETCD_PEER_PORT" "$API_PORT"; do
  if ss -Hltn "sport = :$p" | grep -q .; then
    echo "[start] ERROR: 127.0.0.1:$p is already in use (another cluster with a different ORDINAL_CLUSTER_DIR?):" >&2
    ss -Hltnp "sport = :$p" >&2 || true
    exit 1
  fi
done
rm -rf "$DIR"
mkdir -p "$DIR"/{pki,logs,pids,etcd}
chmod 700 "$DIR" "$DIR/etcd"

# --- certificates and keys (openssl) --------------------------------------------------------
log "generating CA, apiserver serving cert, service-account key pair"
P="$DIR/pki"
openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=ordinal-test-ca" \
  -keyout "$P/ca.key" -out "$P/ca.crt" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" \
  -keyout "$P/apiserver.key" -out "$P/apiserver.csr" 2>/dev/null
cat >"$P/apiserver.ext" <<EOF
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,DNS:localhost,IP:10.96.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc
EOF
openssl x509 -req -in "$P/apiserver.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial \
  -days 30 -extfile "$P/apiserver.ext" -out "$P/apiserver.crt" 2>/dev/null
openssl genrsa -out "$P/sa.key" 2048 2>/dev/null
openssl rsa -in "$P/sa.key" -pubout -out "$P/sa.pub" 2>/dev/null

# --- static tokens: token,user,uid[,"groups"] --------------------------------------------------
ADMIN_TOKEN="$(openssl rand -hex 32)"
RECONCILER_TOKEN="$(openssl rand -hex 32)"
cat >"$DIR/tokens.csv" <<EOF
$ADMIN_TOKEN,admin,admin,"system:masters"
$RECONCILER_TOKEN,ordinal-reconciler,ordinal-reconciler
EOF
chmod 600 "$DIR/tokens.csv"

# Admin kubeconfig (used by kubectl, tests and kube-controller-manager).
API_URL="https://127.0.0.1:$API_PORT"
cat >"$DIR/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: ordinal
  cluster:
    server: $API_URL
    certificate-authority: $P/ca.crt
users:
- name: admin
  user:
    token: $ADMIN_TOKEN
contexts:
- name: ordinal
  context:
    cluster: ordinal
    user: admin
current-context: ordinal
EOF
chmod 600 "$DIR/kubeconfig"

# --- optional: credentials the apiserver sends to admission webhooks ------------------------
# ORDINAL_WEBHOOK_TOKEN_FILE (preferred): the kubeconfig names the file (`tokenFile`), which the
# apiserver re-reads about once a minute, so the token rotates without a restart;
# ORDINAL_WEBHOOK_TOKEN: the token inline (read once at start). A host entry `host:port=FILE` in
# ORDINAL_WEBHOOK_HOSTS gives that host its own token file.
ADMISSION_ARGS=()
if [ -n "${ORDINAL_WEBHOOK_TOKEN_FILE:-}" ] || [ -n "${ORDINAL_WEBHOOK_TOKEN:-}" ]; then
  log "webhook auth: bearer token for $WEBHOOK_HOSTS"
  {
    echo "apiVersion: v1"
    echo "kind: Config"
    echo "users:"
    IFS=',' read -r -a hosts <<<"$WEBHOOK_HOSTS"
    for h in "${hosts[@]}"; do
      h="${h// /}"; [ -n "$h" ] || continue
      file="${ORDINAL_WEBHOOK_TOKEN_FILE:-}"
      if [[ "$h" == *=* ]]; then file="${h#*=}"; h="${h%%=*}"; fi
      echo "- name: \"$h\""
      echo "  user:"
      if [ -n "$file" ]; then echo "    tokenFile: \"$file\""; else echo "    token: \"$ORDINAL_WEBHOOK_TOKEN\""; fi
    done
  } >"$DIR/webhook-kubeconfig"
  cat >"$DIR/admission-config.yaml" <<EOF
apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: $DIR/webhook-kubeconfig
- name: MutatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: $DIR/webhook-kubeconfig
EOF
  chmod 600 "$DIR/webhook-kubeconfig"
  ADMISSION_ARGS=(--admission-control-config-file="$DIR/admission-config.yaml")
fi

# --- optional: an audit log of every request (who, what, when; no bodies) -----------------------
# ORDINAL_AUDIT_LOG=FILE: one JSON line per completed request (level Metadata); the latency
# benchmark (test/bench/latency.ts) counts each controller's requests and Lease writes from it.
# ORDINAL_AUDIT_VERBS=v1,v2: only those verbs (the e2e run logs writes only).
AUDIT_ARGS=()
if [ -n "${ORDINAL_AUDIT_LOG:-}" ]; then
  cat >"$DIR/audit-policy.yaml" <<EOF
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
- level: Metadata
${ORDINAL_AUDIT_VERBS:+  verbs: [${ORDINAL_AUDIT_VERBS}]}
EOF
  AUDIT_ARGS=(--audit-policy-file="$DIR/audit-policy.yaml" --audit-log-path="$ORDINAL_AUDIT_LOG" --audit-log-format=json --audit-log-mode=blocking)
fi

# Start "$@" detached (own session, survives this shell), log + pid file named $1.
launch() {
  local name="$1"; shift
  setsid nohup "$@" >"$DIR/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$DIR/pids/$name.pid"
}
# Alive and not a zombie.
alive() { local st; st="$(ps -o stat= -p "$(cat "$DIR/pids/$1.pid")" 2>/dev/null || true)"; [ -n "$st" ] && [[ "$st" != Z* ]]; }

# --- etcd ------------------------------------------------------------------------------------
log "starting etcd on 127.0.0.1:$ETCD_PORT"
launch etcd etcd --name ordinal --data-dir "$DIR/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster "ordinal=http://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-state new \
  --logger zap --log-level warn

# --- kube-apiserver -----------------------------------------------------------------------------
log "starting kube-apiserver on $API_URL"
launch kube-apiserver "$BIN/kube-apiserver" \
  --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
  --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$API_PORT" --insecure-port=0 \
  --tls-cert-file="$P/apiserver.crt" --tls-private-key-file="$P/apiserver.key" --cert-dir="$P" \
  --client-ca-file="$P/ca.crt" \
  --token-auth-file="$DIR/tokens.csv" \
  --authorization-mode=RBAC \
  --allow-privileged=true \
  --service-account-key-file="$P/sa.pub" --service-account-signing-key-file="$P/sa.key" \
  --service-account-issuer=https://kubernetes.default.svc \
  --service-cluster-ip-range=10.96.0.0/16 \
  --endpoint-reconciler-type=none \
  --enable-admission-plugins=MutatingAdmissionWebhook,ValidatingAdmissionWebhook \
  "${ADMISSION_ARGS[@]}" \
  "${AUDIT_ARGS[@]}" \
  --profiling=false \
  --v="$VERBOSITY"

# Wait for /readyz (fail fast if a process dies).
deadline=$(( $(date +%s) + TIMEOUT ))
until [ "$(curl -s --max-time 2 --cacert "$P/ca.crt" "$API_URL/readyz" 2>/dev/null)" = "ok" ]; do
  alive etcd || die "etcd exited"
  alive kube-apiserver || die "kube-apiserver exited"
  [ "$(date +%s)" -lt "$deadline" ] || die "kube-apiserver not ready (/readyz) after ${TIMEOUT}s"
  sleep 0.5
done
log "kube-apiserver ready"

# --- kube-controller-manager ------------------------------------------------------------------
log "starting kube-controller-manager ($KCM_CONTROLLERS)"
launch kube-controller-manager "$BIN/kube-controller-manager" \
  --kubeconfig="$DIR/kubeconfig" \
  --controllers="$KCM_CONTROLLERS" \
  --service-account-private-key-file="$P/sa.key" \
  --root-ca-file="$P/ca.crt" \
  --leader-elect=false \
  --port=0 --secure-port=0 \
  --profiling=false \
  --v="$VERBOSITY"

# Pods are refused until the default ServiceAccount has its token secret.
export KUBECONFIG="$DIR/kubeconfig"
until [ -n "$(kubectl get serviceaccount default -n default -o jsonpath='{.secrets[0].name}' 2>/dev/null)" ]; do
  alive kube-apiserver || die "kube-apiserver exited"
  alive kube-controller-manager || die "kube-controller-manager exited"
  [ "$(date +%s)" -lt "$deadline" ] || die "default/default ServiceAccount has no token secret after ${TIMEOUT}s"
  sleep 0.5
done
log "default ServiceAccount has its token"

# --- outputs: env (shell), env.json ------------------------------------------------------------
# KUBECONFIG only: `. "$ENV"` then makes kubectl and ordinal use the admin kubeconfig (setting
# KUBE_API_URL too would be two cluster sources, which ordinal refuses). The token-based values
# are there, commented, for a reconciler with the least-privilege identity.
cat >"$DIR/env" <<EOF
export KUBECONFIG=$DIR/kubeconfig
# The reconciler's own least-privilege identity (use instead of KUBECONFIG, e.g. env -u KUBECONFIG):
# export KUBE_API_URL=$API_URL KUBE_TOKEN=$RECONCILER_TOKEN KUBE_CA_FILE=$P/ca.crt
KUBE_ADMIN_TOKEN=$ADMIN_TOKEN
EOF
jq -n --arg url "$API_URL" --arg t "$ADMIN_TOKEN" --arg rt "$RECONCILER_TOKEN" \
  --arg ca "$P/ca.crt" --arg kc "$DIR/kubeconfig" \
  '{KUBE_API_URL:$url, KUBE_TOKEN:$t, KUBE_RECONCILER_TOKEN:$rt, KUBE_CA_FILE:$ca, KUBECONFIG:$kc}' \
  >"$DIR/env.json"
chmod 600 "$DIR/env" "$DIR/env.json"
log "cluster up: $API_URL (state $DIR)"
echo "$DIR/env"
