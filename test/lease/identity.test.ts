/** A holder identity (src/lease/identity.ts): new at each start without a store, kept in one with it. */
import { describe, expect, it } from "vitest";
import { holderIdentity, isIdentityOf, newHolderIdentity } from "../../src/lease/identity.ts";

/** memory returns a store holding `value`, and how many times it was saved to. */
function memory(value?: unknown) {
  const m = { value, saves: 0 };
  return { m, kept: { load: async () => m.value, save: async (id: string) => void ((m.value = id), m.saves++) } };
}

describe("newHolderIdentity", () => {
  it("returns the name and 8 hex digits, new at each call", () => {
    expect(newHolderIdentity("ordinal-worker-2")).toMatch(/^ordinal-worker-2-[0-9a-f]{8}$/);
    expect(newHolderIdentity("x")).not.toBe(newHolderIdentity("x"));
  });
});

describe("isIdentityOf", () => {
  it.each([
    ["ordinal-worker-1-0a1b2c3d", "ordinal-worker-1", true],
    ["ordinal-worker-1-0a1b2c3d", "ordinal-worker-2", false],
    ["ordinal-worker-12-0a1b2c3d", "ordinal-worker-1", false],
    ["ordinal-worker-1-0A1B2C3D", "ordinal-worker-1", false],
    ["ordinal-worker", "ordinal-worker", false],
    [42, "ordinal-worker-1", false],
  ])("%s of %s: %s", (identity, name, yes) => {
    expect(isIdentityOf(identity, name)).toBe(yes);
  });
});

describe("holderIdentity", () => {
  it("without a store (`ordinal serve`): a new identity at each start", async () => {
    const a = await holderIdentity("web-0");
    expect(a).toMatch(/^web-0-[0-9a-f]{8}$/);
    expect(await holderIdentity("web-0")).not.toBe(a);
  });

  it("with a store (the Worker's object): made and saved once, then the same at each start", async () => {
    const { m, kept } = memory();
    const first = await holderIdentity("ordinal-worker-0", kept);
    expect(first).toMatch(/^ordinal-worker-0-[0-9a-f]{8}$/);
    expect(await holderIdentity("ordinal-worker-0", kept)).toBe(first);
    expect(m.saves).toBe(1);
  });

  it.each([["a value of another name", "ordinal-worker-1-0a1b2c3d"], ["the old shared identity", "ordinal-worker"], ["not a string", { holder: 1 }]])(
    "with a store that keeps %s: a new identity, saved",
    async (_, value) => {
      const { m, kept } = memory(value);
      const id = await holderIdentity("ordinal-worker-0", kept);
      expect(id).toMatch(/^ordinal-worker-0-[0-9a-f]{8}$/);
      expect(m.value).toBe(id);
    },
  );
});
