import { describe, expect, it } from "vitest";
import { writeLanded, type AnnouncedWrite } from "../../src/objects/announced-write.ts";

const obj = (resourceVersion: string) => ({ metadata: { resourceVersion } });
const w = (operation: AnnouncedWrite["operation"], resourceVersion?: string): AnnouncedWrite => ({ resource: "pods", name: "web-0", operation, ...(resourceVersion ? { resourceVersion } : {}) });

describe("writeLanded", () => {
  it.each<[string, AnnouncedWrite, { metadata: { resourceVersion: string } } | undefined, boolean]>([
    ["a create, once the object exists", w("CREATE"), obj("5"), true],
    ["a create, not while it is absent", w("CREATE"), undefined, false],
    ["an update, once the resourceVersion moved on", w("UPDATE", "4"), obj("5"), true],
    ["an update, not while the object is as before it", w("UPDATE", "4"), obj("4"), false],
    ["an update of an object now gone", w("UPDATE", "4"), undefined, true],
    ["an update that announced no resourceVersion", w("UPDATE"), obj("4"), true],
    ["a delete, once the object is gone", w("DELETE", "4"), undefined, true],
    ["a graceful delete, once deletionTimestamp is stored (a new resourceVersion)", w("DELETE", "4"), obj("6"), true],
    ["a delete, not while the object is as before it", w("DELETE", "4"), obj("4"), false],
  ])("%s → %s", (_, write, observed, want) => expect(writeLanded(write, observed)).toBe(want));
});
