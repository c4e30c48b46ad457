// Decoding a request body into a stored-form object, as the apiserver's codec does: check kind and
// apiVersion, then normalize times and quantities and apply the kind's defaults.

import { badRequest, invalid, invalidError } from "./errors.ts";
import { isObject, objectAt, str, type Obj } from "./json.ts";
import { apiVersionOf, type ResourceDef } from "./kinds/types.ts";
import { canonicalQuantity, QuantityError } from "./quantity.ts";
import { mapAt, normalizeMicroTime, normalizeTime, TimeDecodeError } from "./time.ts";

/** DecodeError says a body's fields do not decode into the kind (a bad time, quantity, base64 ...). */
export class DecodeError extends Error {
  constructor(
    readonly def: ResourceDef,
    readonly detail: string,
  ) {
    super(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${detail}`);
  }
}

/** cannotHandle is the 400 a request body that does not decode gets. */
function cannotHandle(def: ResourceDef, detail: string): Error {
  return badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${detail}`);
}

function checkType(def: ResourceDef, body: Obj): void {
  const apiVersion = apiVersionOf(def);
  if (def.custom) {
    if (!str(body.kind)) throw cannotHandle(def, `unmarshalerDecoder: Object 'Kind' is missing in '${JSON.stringify(body)}'`);
    if (!str(body.apiVersion)) throw cannotHandle(def, `unmarshalerDecoder: Object 'apiVersion' is missing in '${JSON.stringify(body)}'`);
    const name = str(objectAt(body, "metadata").name);
    const gk = { group: def.group, kind: str(body.kind) };
    if (body.kind !== def.kind) throw invalidError(gk, name, [invalid("kind", body.kind, `must be ${def.kind}`)]);
    if (body.apiVersion !== apiVersion) throw invalidError(gk, name, [invalid("apiVersion", body.apiVersion, `must be ${apiVersion}`)]);
    return;
  }
  if (body.kind !== undefined && body.kind !== "" && body.kind !== def.kind) {
    throw badRequest(
      `${str(body.kind)} in version "${def.version}" cannot be handled as a ${def.kind}: converting (${def.version}.${str(body.kind)}) to (${def.group || "core"}.${def.kind}): unknown conversion`,
    );
  }
  if (body.apiVersion !== undefined && body.apiVersion !== "" && body.apiVersion !== apiVersion) {
    throw cannotHandle(def, `no kind "${def.kind}" is registered for version "${str(body.apiVersion)}"`);
  }
}

/** normalize rewrites times and quantities in place; throws a 400 for values that do not decode. */
function normalize(def: ResourceDef, obj: Obj): void {
  try {
    for (const p of def.timeFields ?? []) mapAt(obj, p, normalizeTime);
    for (const p of def.microTimeFields ?? []) mapAt(obj, p, normalizeMicroTime);
    for (const p of def.quantityMaps ?? []) {
      mapAt(obj, p, (m) => {
        if (!isObject(m)) return m;
        const out: Obj = {};
        for (const [k, v] of Object.entries(m)) out[k] = canonicalQuantity(v);
        return out;
      });
    }
  } catch (e) {
    if (e instanceof TimeDecodeError || e instanceof QuantityError) throw new DecodeError(def, e.message);
    throw e;
  }
}

/** decode turns a request body into an object of def's kind, defaulted and normalized; a body that does not decode is a 400. */
export function decode(def: ResourceDef, body: unknown): Obj {
  try {
    return decodeObject(def, body);
  } catch (e) {
    if (e instanceof DecodeError) throw badRequest(e.message);
    throw e;
  }
}

/** decodePatched decodes the result of a patch: what does not decode is a 422 on the field "patch". */
export function decodePatched(def: ResourceDef, patched: unknown): Obj {
  try {
    return decodeObject(def, patched);
  } catch (e) {
    if (e instanceof DecodeError) throw invalidError({ group: "", kind: "" }, "", [invalid("patch", JSON.stringify(patched), e.detail)]);
    throw e;
  }
}

function decodeObject(def: ResourceDef, body: unknown): Obj {
  if (!isObject(body)) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${def.kind}): couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(body) ? "array" : typeof body} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  checkType(def, body);
  const { kind: _k, apiVersion: _a, ...rest } = structuredClone(body);
  const obj: Obj = { kind: def.kind, apiVersion: apiVersionOf(def), ...rest };
  if (obj.metadata !== undefined && !isObject(obj.metadata)) throw new DecodeError(def, "metadata must be an object");
  const meta = objectAt(obj, "metadata");
  delete meta.managedFields;
  delete meta.selfLink;
  normalize(def, obj);
  def.defaults?.(obj);
  return obj;
}

/** parseBody parses a JSON request body; a body that is not JSON is a 400 like the apiserver's. */
export function parseBody(def: ResourceDef, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${def.kind}): couldn't get version/kind; json parse error: ${(e as Error).message}`,
    );
  }
}
