// Types for queries.mjs (plain JS, no build step), so the TypeScript tests can import it under `strict`.
export const QUERIES: readonly { query: string; kind: string }[];
export const BASELINE_SUBSET: readonly string[];
export const JQ_FILTER: string;
