// README.md is the front page and docs/ holds the pages: every relative link between them must lead
// to a file that exists and, with a #fragment, to a heading (or an <a id>) of that file, as GitHub
// renders it. Pages move and headings change while several people edit them; this catches the link
// left behind.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

/** markdownPages returns README.md and every .md file under docs/, relative to the repository root. */
function markdownPages(): string[] {
  const docs = existsSync(join(root, "docs")) ? readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`) : [];
  return ["README.md", ...docs];
}

/** githubSlug returns the anchor GitHub gives a heading: lower case, punctuation dropped, each space a hyphen. */
function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** anchorsOf returns the fragments a page offers: its headings' slugs (numbered as GitHub numbers repeats) and its <a id>s. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading?.[1] !== undefined) {
      const slug = githubSlug(heading[1]);
      const n = seen.get(slug) ?? 0;
      seen.set(slug, n + 1);
      anchors.add(n === 0 ? slug : `${slug}-${n}`);
    }
    for (const m of line.matchAll(/<a id="([^"]+)"/g)) if (m[1] !== undefined) anchors.add(m[1]);
  }
  return anchors;
}

/** linksOf returns the relative targets of a page's Markdown links (outside code), with the line each is on. */
function linksOf(text: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  let fenced = false;
  text.split("\n").forEach((line, i) => {
    if (line.startsWith("```")) fenced = !fenced;
    if (fenced) return;
    const prose = line.replace(/`[^`]*`/g, "");
    for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (target !== undefined && !/^[a-z]+:/.test(target)) links.push({ target, line: i + 1 });
    }
  });
  return links;
}

/** repoPathsOf returns the repository paths a page names (src/…, test/…, deploy/…, examples/…, docs/…): files with an extension, or folders ending in /. */
function repoPathsOf(text: string): string[] {
  const paths = text.match(/(?<![\w./-])(?:src|test|deploy|webhooks|examples|docs)\/[\w./-]*(?:\.[a-z]+|\/)(?![\w-])/g) ?? [];
  return [...new Set(paths.map((p) => p.replace(/[.]+$/, "")))];
}

describe("githubSlug", () => {
  it.each([
    ["A. In the cluster, on Node: `kubectl apply -k deploy/`", "a-in-the-cluster-on-node-kubectl-apply--k-deploy"],
    ["Lifecycle hooks (`lifecycle.preDelete`, `lifecycle.inPlaceUpdate`)", "lifecycle-hooks-lifecyclepredelete-lifecycleinplaceupdate"],
    ["Migrating an apps/v1 StatefulSet", "migrating-an-appsv1-statefulset"],
  ])("%s → %s", (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });
});

describe("README.md and docs/", () => {
  it("README.md stays a front page (at most 400 lines)", () => {
    expect(readFileSync(join(root, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(400);
  });

  it.each(markdownPages())("%s: every relative link leads to a file, and a #fragment to a heading of it", (page) => {
    const broken: string[] = [];
    for (const { target, line } of linksOf(readFileSync(join(root, page), "utf8"))) {
      const [path = "", fragment] = target.split("#");
      const file = path === "" ? join(root, page) : join(root, dirname(page), path);
      if (!existsSync(file)) {
        broken.push(`${page}:${line}: ${target}: no file ${relative(root, file)}`);
        continue;
      }
      if (fragment !== undefined && statSync(file).isFile() && !anchorsOf(readFileSync(file, "utf8")).has(fragment)) {
        broken.push(`${page}:${line}: ${target}: no heading #${fragment} in ${relative(root, file)}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it.each(markdownPages())("%s: every file or folder of the repository it names exists (a moved file leaves no stale path)", (page) => {
    const missing = repoPathsOf(readFileSync(join(root, page), "utf8")).filter((p) => !existsSync(join(root, p)));
    expect(missing).toEqual([]);
  });
});
