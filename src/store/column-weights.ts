/**
 * How much each indexed column counts in the word ranking (BM25 in SQLite, ts_rank weights in PostgreSQL): a
 * tool name or target named in the query weighs more than the text, split identifiers and the neighbours'
 * text less. The role column is stored for filtering and never ranks. Tuned on LoCoMo (docs/benchmarks.md).
 */
export const COLUMN_WEIGHTS = { text: 1.0, role: 0.0, tool: 2.0, target: 1.5, keywords: 0.6, context: 0.3 } as const;
