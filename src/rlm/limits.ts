/** Bounds of `moon rlm query` (a module of its own: the library's entry point exports it without loading the rest). */
export const DEFAULT_QUERY_LIMIT = 5;
export const MAX_QUERY_LIMIT = 50;
