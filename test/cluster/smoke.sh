#!/usr/bin/env bash
# Smoke test of a running cluster (start.sh first): namespaces, a CRD + custom resource
# (proves the reflect2 fix), pod dry-run + create, PVC, garbage collection of an owned
# ConfigMap. Uses a throw-away namespace and removes what it made. Exit 0 = all good.
set -euo pipefail

DIR="${ORDINAL_CLUSTER_DIR:-/tmp/ordinal-cluster}"
export KUBECONFIG="$DIR/kubeconfig"
NS="smoke-$$"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
k() { kubectl "$@"; }
step() { echo "[smoke] $*"; }
fail() { echo "[smoke] FAIL: $*" >&2; exit 1; }

step "get ns"; k get ns
k create namespace "$NS" >/dev/null

step "CRD + custom resource"
cat >"$WORK/crd.yaml" <<'EOF'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.smoke.ordinal.dev
spec:
  group: smoke.ordinal.dev
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
EOF
k apply -f "$WORK/crd.yaml"
k wait --for=condition=Established --timeout=30s crd/widgets.smoke.ordinal.dev
cat >"$WORK/cr.yaml" <<EOF
apiVersion: smoke.ordinal.dev/v1
kind: Widget
metadata: {name: w1, namespace: $NS}
spec: {size: 3, nested: {a: [1, 2, {b: c}]}}
EOF
k create -f "$WORK/cr.yaml"
[ "$(k get widget w1 -n "$NS" -o jsonpath='{.spec.nested.a[2].b}')" = c ] || fail "custom resource read-back"

step "pod: server dry-run, then for real"
cat >"$WORK/pod.yaml" <<EOF
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: $NS}
spec:
  containers: [{name: c, image: busybox}]
EOF
k create --dry-run=server -f "$WORK/pod.yaml"
k get pod p1 -n "$NS" >/dev/null 2>&1 && fail "dry-run created the pod"
k create -f "$WORK/pod.yaml"

step "PVC"
cat >"$WORK/pvc.yaml" <<EOF
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data-p1, namespace: $NS}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
EOF
k create -f "$WORK/pvc.yaml"

step "delete the custom resource"
k delete widget w1 -n "$NS"
k get widget w1 -n "$NS" >/dev/null 2>&1 && fail "custom resource still there"

step "garbage collection of an owned ConfigMap"
k create configmap owner -n "$NS" --from-literal=a=b
UID_OWNER="$(k get configmap owner -n "$NS" -o jsonpath='{.metadata.uid}')"
cat >"$WORK/owned.yaml" <<EOF
apiVersion: v1
kind: ConfigMap
metadata:
  name: owned
  namespace: $NS
  ownerReferences:
  - {apiVersion: v1, kind: ConfigMap, name: owner, uid: $UID_OWNER}
data: {x: "1"}
EOF
k create -f "$WORK/owned.yaml"
k delete configmap owner -n "$NS"
start=$(date +%s)
while k get configmap owned -n "$NS" >/dev/null 2>&1; do
  [ $(( $(date +%s) - start )) -lt 30 ] || fail "owned ConfigMap not collected after 30 s"
  sleep 0.5
done
step "owned ConfigMap collected after $(( $(date +%s) - start )) s"

step "cleanup"
k delete crd widgets.smoke.ordinal.dev >/dev/null
k delete pod p1 -n "$NS" --wait=false >/dev/null
k delete namespace "$NS" --wait=false >/dev/null
step "OK"
