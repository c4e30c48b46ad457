/**
 * ImageList validation: every key of spec.images must parse as an image reference (image-ref.ts);
 * each bad one is reported at `spec.images[<ref>]`, so a bad reference never becomes a puller pod.
 * Also the name (a DNS subdomain, as for any custom resource: it names a node), value types, and
 * spec.imagePullSecrets: at most 16, each only a `name` that is a Secret's name (DNS subdomain).
 */
import { MAX_IMAGELIST_PULL_SECRETS, type ImageList } from "../api/imagelist.ts";
import { type FieldError, FieldPath, forbidden, invalid, required, tooMany, typeInvalid } from "./field-error.ts";
import { parseImageReference } from "./image-ref.ts";
import { Reader, isObject, jsonType } from "./json.ts";
import { validateObjectMeta } from "./meta.ts";
import { isDNS1123Subdomain, nameIsDNSSubdomain } from "./names.ts";

/** validateImageList returns every error of an ImageList (untyped input; never throws). */
export function validateImageList(obj: ImageList | unknown): FieldError[] {
  if (!isObject(obj)) return [typeInvalid("", jsonType(obj), `body must be of type object: "${jsonType(obj)}"`)];
  const r = new Reader();
  const specPath = FieldPath.root("spec");
  const errs = validateObjectMeta(obj.metadata, FieldPath.root("metadata"), { nameFn: nameIsDNSSubdomain });
  const spec = r.obj(obj.spec, specPath);
  if (!spec) {
    if (obj.spec === undefined || obj.spec === null) errs.push(required(specPath));
    return [...r.errors, ...errs];
  }
  const imagesPath = specPath.child("images");
  const images = r.obj(spec.images, imagesPath);
  if (!images && (spec.images === undefined || spec.images === null)) errs.push(required(imagesPath));
  for (const [ref, options] of Object.entries(images ?? {})) {
    const path = imagesPath.key(ref);
    const parsed = parseImageReference(ref);
    if (!parsed.ok) errs.push(invalid(path, ref, parsed.reason));
    const o = r.obj(options, path);
    if (o) r.bool(o.alwaysPull, path.child("alwaysPull"));
  }
  const secretsPath = specPath.child("imagePullSecrets");
  const secrets = r.objList(spec.imagePullSecrets, secretsPath);
  if (secrets.length > MAX_IMAGELIST_PULL_SECRETS) errs.push(tooMany(secretsPath, secrets.length, MAX_IMAGELIST_PULL_SECRETS));
  for (const { item, index } of secrets.slice(0, MAX_IMAGELIST_PULL_SECRETS)) {
    const path = secretsPath.index(index);
    if (Object.keys(item).some((k) => k !== "name")) errs.push(invalid(path, item, "only name may be set"));
    const name = r.str(item.name, path.child("name"));
    if (item.name === undefined || item.name === null) errs.push(required(path.child("name")));
    else if (name !== undefined) errs.push(...isDNS1123Subdomain(name).map((m) => invalid(path.child("name"), name, m)));
  }
  // Earlier drafts had a nodeSelector; an ImageList is for the node it is named after.
  if (spec.nodeSelector !== undefined) errs.push(forbidden(specPath.child("nodeSelector"), "an ImageList applies to the node named by metadata.name"));
  return [...r.errors, ...errs];
}
