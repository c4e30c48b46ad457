/**
 * The YAML printer, in a module of its own: commands import() this when they print YAML, so
 * `ordinal --help` does not load it. (Not `import("yaml")` itself: in the bundle, esbuild gives a
 * dynamically imported CommonJS package only a default export, and `stringify` would be undefined.)
 */
export { stringify } from "yaml";
