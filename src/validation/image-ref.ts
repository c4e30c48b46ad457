/**
 * Container image references, after github.com/distribution/reference (regexp.go, reference.go)
 * and github.com/opencontainers/go-digest, which the kubelet and containerd use to parse `image`.
 * The apiserver only requires an image to be non-empty (and, for pods, free of surrounding
 * whitespace); a reference that does not parse fails later on the node with InvalidImageName.
 * Ordinal refuses those up front. Parsing is reference.ParseNormalizedNamed (docker.io defaults).
 *
 *   reference  := name [ ":" tag ] [ "@" digest ]
 *   name       := [domain '/'] remote-name
 *   domain     := host [':' port]; host := domain-name | '[' IPv6 ']'
 *   remote-name:= path-component ['/' path-component]*; path-component := [a-z0-9]+ (separator [a-z0-9]+)*
 *   separator  := [_.] | __ | [-]+
 *   tag        := [\w][\w.-]{0,127}
 *   digest     := algorithm ":" hex; algorithm := [A-Za-z][A-Za-z0-9]* ([-_+.][A-Za-z][A-Za-z0-9]*)*
 */

const alphanumeric = "[a-z0-9]+";
const separator = "(?:[._]|__|[-]+)";
const pathComponent = `${alphanumeric}(?:${separator}${alphanumeric})*`;
const domainNameComponent = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const domainName = `${domainNameComponent}(?:\\.${domainNameComponent})*`;
const ipv6 = "\\[(?:[a-fA-F0-9:]+)\\]";
const domainAndPort = `(?:${domainName}|${ipv6})(?::[0-9]+)?`;
const remoteName = `${pathComponent}(?:/${pathComponent})*`;
const namePat = `(?:${domainAndPort}/)?${remoteName}`;
const tagPat = "[\\w][\\w.-]{0,127}";
const digestPat = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}";

const referenceRe = new RegExp(`^(${namePat})(?::(${tagPat}))?(?:@(${digestPat}))?$`);
const anchoredNameRe = new RegExp(`^(?:(${domainAndPort})/)?(${remoteName})$`);
const identifierRe = /^[a-f0-9]{64}$/;

const NAME_TOTAL_LENGTH_MAX = 255;
const DIGEST_HEX_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

export type ImageReference =
  | { ok: true; domain: string; path: string; tag?: string; digest?: string }
  | { ok: false; reason: string };

/**
 * splitDockerDomain: the first component is a registry only if it has a '.' or ':', is
 * "localhost", or has capitals; otherwise the image is on docker.io (official images under library/).
 */
function splitDockerDomain(name: string): [string, string] {
  const i = name.indexOf("/");
  let domain: string;
  let remainder: string;
  const first = name.slice(0, i);
  if (i === -1 || (!/[.:]/.test(first) && first !== "localhost" && first.toLowerCase() === first)) {
    domain = "docker.io";
    remainder = name;
  } else {
    domain = first;
    remainder = name.slice(i + 1);
  }
  if (domain === "index.docker.io") domain = "docker.io";
  if (domain === "docker.io" && !remainder.includes("/")) remainder = "library/" + remainder;
  return [domain, remainder];
}

/**
 * parseImageReference parses an image the way the kubelet and containerd do
 * (reference.ParseNormalizedNamed): `nginx` is `docker.io/library/nginx`. On failure the reason is
 * the library's own error text ("invalid reference format", "invalid checksum digest length", …).
 */
export function parseImageReference(ref: unknown): ImageReference {
  if (typeof ref !== "string") return { ok: false, reason: "image reference must be a string" };
  if (identifierRe.test(ref)) return { ok: false, reason: `invalid repository name (${ref}), cannot specify 64-byte hexadecimal strings` };
  const [domain, remainder] = splitDockerDomain(ref);
  const tagSep = remainder.indexOf(":");
  const remoteName = tagSep > -1 ? remainder.slice(0, tagSep) : remainder;
  if (remoteName.toLowerCase() !== remoteName) return { ok: false, reason: `invalid reference format: repository name (${remoteName}) must be lowercase` };
  const full = `${domain}/${remainder}`;
  const m = referenceRe.exec(full);
  if (!m) {
    if (referenceRe.test(full.toLowerCase())) return { ok: false, reason: "invalid reference format: repository name must be lowercase" };
    return { ok: false, reason: "invalid reference format" };
  }
  const [, name, tag, digest] = m;
  if (name.length > NAME_TOTAL_LENGTH_MAX) return { ok: false, reason: `repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters` };
  if (digest) {
    const reason = digestError(digest);
    if (reason) return { ok: false, reason };
  }
  const nm = anchoredNameRe.exec(name)!;
  return {
    ok: true,
    domain: nm[1] ?? domain,
    path: nm[2],
    ...(tag !== undefined ? { tag } : {}),
    ...(digest !== undefined ? { digest } : {}),
  };
}
/** digestError is go-digest's Digest.Validate for the algorithms it knows. */
function digestError(digest: string): string | undefined {
  const i = digest.indexOf(":");
  const algorithm = digest.slice(0, i);
  const encoded = digest.slice(i + 1);
  const size = DIGEST_HEX_LENGTH[algorithm];
  if (size === undefined || !Object.prototype.hasOwnProperty.call(DIGEST_HEX_LENGTH, algorithm)) return "unsupported digest algorithm";
  if (encoded.length !== size) return "invalid checksum digest length";
  if (!/^[a-f0-9]+$/.test(encoded)) return "invalid checksum digest format";
  return undefined;
}

export type NormalizedImage = { ok: true; ref: string } | { ok: false; reason: string };

/**
 * normalizeImageReference returns the fully qualified reference a container runtime pulls for
 * `ref` (containerd's ParseNormalizedNamed + TagNameOnly): `nginx` → `docker.io/library/nginx:latest`,
 * `example.com/a/b:1@sha256:…` kept as is (tag and digest both kept; `:latest` is added only when
 * there is neither). Two references that name the same image normalize to the same string; an
 * invalid one returns the parser's reason.
 */
export function normalizeImageReference(ref: unknown): NormalizedImage {
  const p = parseImageReference(ref);
  if (!p.ok) return p;
  const tag = p.tag !== undefined ? `:${p.tag}` : p.digest === undefined ? ":latest" : "";
  const digest = p.digest !== undefined ? `@${p.digest}` : "";
  return { ok: true, ref: `${p.domain}/${p.path}${tag}${digest}` };
}
