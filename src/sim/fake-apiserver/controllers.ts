// The kube-controller-manager controllers the test cluster runs (serviceaccount, serviceaccount-
// token, garbagecollector, namespace) plus pvc-protection, run synchronously after each request
// (or on demand with gc()) so that the fake's state settles the way a real cluster's would.

import { isApiError } from "./errors.ts";
import { deleteObject } from "./deletion.ts";
import { GarbageCollector } from "./gc.ts";
import { encodeBase64, finalizersOf, metaOf, objectAt, objectsIn, setFinalizers, str, type Obj } from "./json.ts";
import { namespaces, serviceAccounts, secrets } from "./kinds/core.ts";
import { pods } from "./kinds/pods.ts";
import { persistentVolumeClaims, PVC_PROTECTION_FINALIZER } from "./kinds/pvcs.ts";
import type { Change, Engine } from "./rest.ts";

export interface ControllerOptions {
  /** create the `default` ServiceAccount (with a token Secret) in every namespace */
  serviceAccounts: boolean;
}

const MAX_STEPS = 1_000_000;

function swallow(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (isApiError(e)) return;
    throw e;
  }
}

export class Controllers {
  readonly gc: GarbageCollector;
  private readonly terminating = new Set<string>();
  private readonly pvcNamespaces = new Set<string>();
  private readonly saNamespaces = new Set<string>();
  private readonly tokenless = new Set<string>();

  constructor(
    private readonly engine: Engine,
    private readonly opts: ControllerOptions,
  ) {
    this.gc = new GarbageCollector(engine);
  }

  /** observe is called for every stored change. */
  observe(c: Change): void {
    this.gc.observe(c);
    const meta = metaOf(c.obj);
    const ns = str(meta.namespace);
    if (c.def === namespaces) {
      if (c.type === "added") this.saNamespaces.add(str(meta.name));
      if (c.type === "modified" && meta.deletionTimestamp) this.terminating.add(str(meta.name));
      return;
    }
    if (c.def.namespaced && c.type === "deleted") {
      const nsObj = this.engine.find("", "namespaces", "", ns);
      if (nsObj && metaOf(nsObj).deletionTimestamp) this.terminating.add(ns);
    }
    if (c.def === persistentVolumeClaims ? meta.deletionTimestamp : c.def === pods && this.hasDeletingClaims(ns)) this.pvcNamespaces.add(ns);
    if (c.def === serviceAccounts) {
      if (c.type === "deleted" && meta.name === "default") this.saNamespaces.add(ns);
      if (c.type !== "deleted" && objectsIn(c.obj.secrets).length === 0) this.tokenless.add(`${ns}/${str(meta.name)}`);
    }
  }

  private hasDeletingClaims(ns: string): boolean {
    return this.engine.store.list(persistentVolumeClaims, ns).some((c) => metaOf(c).deletionTimestamp);
  }

  /** settleServiceAccounts runs the serviceaccount and token controllers (always synchronous). */
  settleServiceAccounts(): void {
    if (!this.opts.serviceAccounts) {
      this.saNamespaces.clear();
      this.tokenless.clear();
      return;
    }
    for (let steps = 0; this.saNamespaces.size > 0 || this.tokenless.size > 0; steps++) {
      if (steps > MAX_STEPS) throw new Error("fake apiserver: serviceaccount controllers did not settle");
      const ns = this.saNamespaces.values().next();
      if (!ns.done) {
        this.saNamespaces.delete(ns.value);
        this.ensureDefaultServiceAccount(ns.value);
        continue;
      }
      const key = this.tokenless.values().next().value!;
      this.tokenless.delete(key);
      const [saNs, saName] = key.split("/") as [string, string];
      this.ensureToken(saNs, saName);
    }
  }

  /** settle runs every controller until nothing is left to do. */
  settle(): void {
    for (let steps = 0; ; steps++) {
      if (steps > MAX_STEPS) throw new Error("fake apiserver: controllers did not settle");
      this.settleServiceAccounts();
      if (this.gc.step()) continue;
      const ns = this.terminating.values().next();
      if (!ns.done) {
        this.terminating.delete(ns.value);
        this.finalizeNamespace(ns.value);
        continue;
      }
      const pvcNs = this.pvcNamespaces.values().next();
      if (!pvcNs.done) {
        this.pvcNamespaces.delete(pvcNs.value);
        this.releaseClaims(pvcNs.value);
        continue;
      }
      return;
    }
  }

  /** runAll queues everything and settles: the gc() helper. */
  runAll(): void {
    this.gc.markAll();
    for (const { def, obj } of this.engine.store.all()) {
      const meta = metaOf(obj);
      if (def === namespaces && meta.deletionTimestamp) this.terminating.add(str(meta.name));
      if (def === persistentVolumeClaims && meta.deletionTimestamp) this.pvcNamespaces.add(str(meta.namespace));
    }
    this.settle();
  }

  private ensureDefaultServiceAccount(ns: string): void {
    const nsObj = this.engine.find("", "namespaces", "", ns);
    if (!nsObj || metaOf(nsObj).deletionTimestamp) return;
    if (this.engine.find("", "serviceaccounts", ns, "default")) return;
    swallow(() => this.engine.create(serviceAccounts, ns, { metadata: { name: "default" } }));
  }

  /** ensureToken is the token controller: a service-account-token Secret per ServiceAccount. */
  private ensureToken(ns: string, name: string): void {
    const sa = this.engine.find("", "serviceaccounts", ns, name);
    if (!sa || objectsIn(sa.secrets).length > 0 || metaOf(sa).deletionTimestamp) return;
    const secretName = `${name}-token-${this.engine.randomSuffix(5)}`;
    swallow(() => {
      this.engine.create(secrets, ns, {
        metadata: {
          name: secretName,
          annotations: { "kubernetes.io/service-account.name": name, "kubernetes.io/service-account.uid": str(metaOf(sa).uid) },
        },
        type: "kubernetes.io/service-account-token",
        data: { "ca.crt": encodeBase64("fake-ca"), namespace: encodeBase64(ns), token: encodeBase64(`fake-token-${this.engine.randomSuffix(16)}`) },
      });
      this.engine.internalUpdate(serviceAccounts, sa, (o) => {
        o.secrets = [{ name: secretName }];
      });
    });
  }

  /** finalizeNamespace is the namespace controller: empty the namespace, then let it go. */
  private finalizeNamespace(ns: string): void {
    const nsObj = this.engine.find("", "namespaces", "", ns);
    if (!nsObj || !metaOf(nsObj).deletionTimestamp) return;
    for (const def of this.engine.registry.all) {
      if (!def.namespaced) continue;
      for (const obj of this.engine.store.list(def, ns)) {
        if (metaOf(obj).deletionTimestamp) continue;
        swallow(() => deleteObject(this.engine, def, ns, str(metaOf(obj).name), {}));
      }
    }
    if (this.engine.store.countInNamespace(ns) > 0) return;
    const current = this.engine.find("", "namespaces", "", ns);
    if (!current) return;
    const finalizers = objectAt(current, "spec").finalizers;
    if (Array.isArray(finalizers) && finalizers.includes("kubernetes")) {
      const next = structuredClone(current);
      objectAt(next, "spec").finalizers = finalizers.filter((f) => f !== "kubernetes");
      swallow(() => this.engine.updateDecoded(namespaces, "", ns, next, "finalize", {}));
    }
    swallow(() => deleteObject(this.engine, namespaces, "", ns, {}));
  }

  /** releaseClaims is the pvc-protection controller: drop the finalizer of deleted claims no scheduled pod uses. */
  private releaseClaims(ns: string): void {
    const scheduled = this.engine.store.list(pods, ns).filter((p) => str(objectAt(p, "spec").nodeName));
    for (const pvc of this.engine.store.list(persistentVolumeClaims, ns)) {
      const meta = metaOf(pvc);
      if (!meta.deletionTimestamp || !finalizersOf(pvc).includes(PVC_PROTECTION_FINALIZER)) continue;
      const inUse = scheduled.some((p) => objectsIn(objectAt(p, "spec").volumes).some((v) => claimName(v) === meta.name));
      if (inUse) continue;
      swallow(() => this.engine.internalUpdate(persistentVolumeClaims, pvc, (o) => setFinalizers(o, finalizersOf(o).filter((f) => f !== PVC_PROTECTION_FINALIZER))));
    }
  }
}

function claimName(volume: Obj): string {
  const src = volume.persistentVolumeClaim;
  return src && typeof src === "object" ? str((src as Obj).claimName) : "";
}

