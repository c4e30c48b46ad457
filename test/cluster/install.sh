#!/usr/bin/env bash
# Install the Debian packages needed for a local Kubernetes control plane and build
# kube-apiserver + kube-controller-manager (1.20.2, from `apt-get source kubernetes`).
# Binaries are cached in ${ORDINAL_KUBE_CACHE:-$HOME/.cache/ordinal-kube}/bin; when they are
# there (and the packages installed) this is a fast no-op. See README.md.
set -euo pipefail

CACHE="${ORDINAL_KUBE_CACHE:-$HOME/.cache/ordinal-kube}"
BIN="$CACHE/bin"
PKGS=(etcd-server golang-go rsync jq golang-github-modern-go-reflect2-dev openssl dpkg-dev make)
SRC_LIST=/etc/apt/sources.list.d/ordinal-deb-src.sources

log() { echo "[install] $(date +%H:%M:%S) $*"; }
die() { echo "[install] ERROR: $*" >&2; exit 1; }
trap 'rc=$?; [ $rc -eq 0 ] || echo "[install] FAILED (exit $rc) at line $LINENO: $BASH_COMMAND" >&2' EXIT

have_bins() { [ -x "$BIN/kube-apiserver" ] && [ -x "$BIN/kube-controller-manager" ]; }
missing_pkgs() {
  local p
  for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
  done
}

# Fast path: everything already there.
if have_bins && [ -z "$(missing_pkgs)" ]; then
  log "cached: $BIN (nothing to do)"
  exit 0
fi

mkdir -p "$CACHE"
# Serialise concurrent runs (two test runners must not both build).
exec 9>"$CACHE/install.lock"
if ! flock -n 9; then
  log "another install is running; waiting for the lock $CACHE/install.lock"
  flock 9
fi

[ "$(id -u)" = 0 ] || die "must run as root (apt-get install)"
export DEBIAN_FRONTEND=noninteractive

# --- apt sources: add a deb-src entry if none exists --------------------------------------
need_update=0
has_deb_src() {
  grep -Eqs '^Types:.*\bdeb-src\b' /etc/apt/sources.list.d/*.sources ||
    grep -Eqs '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list
}
if ! has_deb_src; then
  [ -f /etc/apt/sources.list.d/debian.sources ] || die "no /etc/apt/sources.list.d/debian.sources to copy a deb-src entry from"
  log "adding deb-src entry: $SRC_LIST"
  sed -E 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources >"$SRC_LIST"
  need_update=1
fi
# No source index downloaded yet -> update once.
ls /var/lib/apt/lists/*_Sources* >/dev/null 2>&1 || need_update=1

# --- packages ------------------------------------------------------------------------------
missing="$(missing_pkgs | tr '\n' ' ')"
if [ -n "${missing// /}" ]; then
  if [ $need_update = 0 ] && ! apt-get install -y --no-install-recommends --dry-run $missing >/dev/null 2>&1; then
    need_update=1
  fi
fi
if [ $need_update = 1 ]; then
  log "apt-get update"
  apt-get update -q || die "apt-get update failed"
fi
if [ -n "${missing// /}" ]; then
  log "apt-get install $missing"
  apt-get install -y -q --no-install-recommends $missing || die "apt-get install failed: $missing"
fi

if have_bins; then
  log "cached: $BIN (packages installed)"
  exit 0
fi

# --- source tree ---------------------------------------------------------------------------
command -v go >/dev/null || die "go not found after installing golang-go"
log "go: $(go version)"
mkdir -p "$CACHE/src"
TREE="$(find "$CACHE/src" -mindepth 1 -maxdepth 1 -type d -name 'kubernetes-*' | head -n1)"
if [ -z "$TREE" ] || [ ! -f "$TREE/.ordinal-prepared" ]; then
  rm -rf "$CACHE/src"
  mkdir -p "$CACHE/src"
  log "apt-get source kubernetes -> $CACHE/src (about 30 MB)"
  (cd "$CACHE/src" && apt-get source -q kubernetes) || die "apt-get source kubernetes failed"
  TREE="$(find "$CACHE/src" -mindepth 1 -maxdepth 1 -type d -name 'kubernetes-*' | head -n1)"
  [ -n "$TREE" ] || die "apt-get source did not produce a kubernetes-* directory in $CACHE/src"

  # Required fix: vendored reflect2 1.0.1 segfaults under Go >= 1.18 on the first custom
  # resource write. Swap in Debian's 1.0.2 source (only .go files + LICENSE; no go.mod).
  R2=/usr/share/gocode/src/github.com/modern-go/reflect2
  [ -f "$R2/reflect2.go" ] || die "reflect2 source not found at $R2 (golang-github-modern-go-reflect2-dev)"
  VR2="$TREE/vendor/github.com/modern-go/reflect2"
  [ -d "$VR2" ] || die "unexpected tree: $VR2 missing"
  log "replacing $VR2 with $R2"
  rsync -a --delete --exclude='*_test.go' --exclude='go.mod' --exclude='go.sum' \
    --exclude='test*/' --exclude='.*' "$R2/" "$VR2/"

  # GOPATH layout expected by the kubernetes 1.20 build scripts.
  mkdir -p "$TREE/.go/src/k8s.io"
  ln -sfn ../../.. "$TREE/.go/src/k8s.io/kubernetes"
  touch "$TREE/.ordinal-prepared"
else
  log "reusing prepared tree $TREE"
fi

# --- build ---------------------------------------------------------------------------------
log "building kube-apiserver + kube-controller-manager in $TREE (5-15 min on 2 cores)"
start=$(date +%s)
(
  cd "$TREE"
  # (the kubernetes build puts its Go build cache in _output/local/go/cache)
  export GOPATH="$TREE/.go" CGO_ENABLED=0
  make WHAT="cmd/kube-apiserver cmd/kube-controller-manager"
) || die "make failed in $TREE"
log "build took $(( $(date +%s) - start )) s"

mkdir -p "$BIN"
for b in kube-apiserver kube-controller-manager; do
  f="$TREE/_output/bin/$b"
  [ -x "$f" ] || die "built binary not found: $f"
  cp -L "$f" "$BIN/$b.tmp" && mv "$BIN/$b.tmp" "$BIN/$b"
done
"$BIN/kube-apiserver" --version || die "kube-apiserver does not run"
log "done: $BIN"
