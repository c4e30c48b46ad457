/**
 * The webhook server's TLS certificate when Ordinal runs in the cluster (deploy/): the first
 * replica to start makes a CA and a serving certificate for the webhook Service and stores them
 * in a Secret; every replica reads the same Secret; registration puts the CA in the webhook
 * configurations' caBundle. So `kubectl apply -k deploy/` needs no certificate step and no
 * cert-manager. To rotate, delete the Secret and restart the Deployment.
 */
import { generateKeyPairSync } from "node:crypto";
import forge from "node-forge";
import { isAlreadyExists, type KubeClient, type KubeObject } from "../kube/client.ts";
import { R } from "../kube/resources.ts";

export interface ServingCert {
  cert: string;
  key: string;
  ca: string;
}

type Secret = KubeObject & { type?: string; data?: Record<string, string> };

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const unb64 = (s: string | undefined) => (s ? Buffer.from(s, "base64").toString("utf8") : "");

/** serviceHosts returns the DNS names a Service is called by from the apiserver. */
export const serviceHosts = (service: { namespace: string; name: string }) => [
  `${service.name}.${service.namespace}.svc`,
  `${service.name}.${service.namespace}.svc.cluster.local`,
  `${service.name}.${service.namespace}`,
];

/** rsaKeys makes an RSA key pair with Node's native crypto (forge's pure-JS keygen takes seconds). */
function rsaKeys(): forge.pki.rsa.KeyPair {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs8", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } });
  const priv = forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
  return { privateKey: priv, publicKey: forge.pki.setRsaPublicKey(priv.n, priv.e) };
}

function randomSerial(): string {
  return `01${forge.util.bytesToHex(forge.random.getBytesSync(15))}`;
}

/**
 * generateServingCert returns a new CA (10 years) and a serving certificate (5 years) signed by
 * it for `hosts` (DNS names and IP addresses), all PEM.
 */
export function generateServingCert(hosts: string[], now = new Date()): ServingCert {
  const years = (n: number) => new Date(now.getTime() + n * 365 * 86_400_000);
  const caKeys = rsaKeys();
  const ca = forge.pki.createCertificate();
  ca.publicKey = caKeys.publicKey;
  ca.serialNumber = randomSerial();
  ca.validity.notBefore = new Date(now.getTime() - 60_000);
  ca.validity.notAfter = years(10);
  const caName = [{ name: "commonName", value: "ordinal-webhook-ca" }];
  ca.setSubject(caName);
  ca.setIssuer(caName);
  ca.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
  ]);
  ca.sign(caKeys.privateKey, forge.md.sha256.create());

  const keys = rsaKeys();
  const leaf = forge.pki.createCertificate();
  leaf.publicKey = keys.publicKey;
  leaf.serialNumber = randomSerial();
  leaf.validity.notBefore = new Date(now.getTime() - 60_000);
  leaf.validity.notAfter = years(5);
  leaf.setSubject([{ name: "commonName", value: hosts[0] ?? "ordinal-webhooks" }]);
  leaf.setIssuer(caName);
  const isIp = (h: string) => /^[\d.]+$/.test(h) || h.includes(":");
  leaf.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectAltName", altNames: hosts.map((h) => (isIp(h) ? { type: 7, ip: h } : { type: 2, value: h })) },
  ]);
  leaf.sign(caKeys.privateKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(leaf), key: forge.pki.privateKeyToPem(keys.privateKey), ca: forge.pki.certificateToPem(ca) };
}

/** certCovers is true when the PEM certificate is valid for 30 more days and names every host. */
export function certCovers(pem: string, hosts: string[], now = new Date()): boolean {
  try {
    const c = forge.pki.certificateFromPem(pem);
    if (c.validity.notAfter.getTime() < now.getTime() + 30 * 86_400_000) return false;
    const san = c.getExtension("subjectAltName") as { altNames?: { value?: string; ip?: string }[] } | null;
    const names = new Set((san?.altNames ?? []).map((a) => a.ip ?? a.value));
    return hosts.every((h) => names.has(h));
  } catch {
    return false;
  }
}

/**
 * ensureServingCert returns the certificate in Secret `namespace/name`, creating the Secret when
 * it is missing. When another replica created it first (409), theirs is used. A Secret whose
 * certificate no longer covers `hosts` or expires within 30 days is an error that says what to do
 * (the reconciler may not update Secrets: least privilege).
 */
export async function ensureServingCert(client: KubeClient, secret: { namespace: string; name: string }, hosts: string[]): Promise<ServingCert> {
  const read = (s: Secret): ServingCert => ({ cert: unb64(s.data?.["tls.crt"]), key: unb64(s.data?.["tls.key"]), ca: unb64(s.data?.["ca.crt"]) });
  let existing = await client.get<Secret>(R.secrets, secret.namespace, secret.name);
  if (!existing) {
    const made = generateServingCert(hosts);
    try {
      await client.create<Secret>(R.secrets, secret.namespace, {
        apiVersion: "v1",
        kind: "Secret",
        type: "kubernetes.io/tls",
        metadata: { name: secret.name, namespace: secret.namespace, labels: { "app.kubernetes.io/part-of": "ordinal" } },
        data: { "tls.crt": b64(made.cert), "tls.key": b64(made.key), "ca.crt": b64(made.ca) },
      });
      return made;
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      existing = await client.get<Secret>(R.secrets, secret.namespace, secret.name);
      if (!existing) throw e;
    }
  }
  const got = read(existing);
  if (!got.cert || !got.key || !got.ca) throw new Error(`Secret ${secret.namespace}/${secret.name} lacks tls.crt, tls.key or ca.crt: delete it and restart to regenerate`);
  if (!certCovers(got.cert, hosts)) {
    throw new Error(`the certificate in Secret ${secret.namespace}/${secret.name} expires within 30 days or does not name ${hosts.join(", ")}: delete the Secret and restart the Deployment to regenerate it`);
  }
  return got;
}
