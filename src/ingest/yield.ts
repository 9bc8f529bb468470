/**
 * A macrotask turn. With the synchronous SQLite engine every await in ingest resolves at once, so a long index
 * run would hold the event loop from its first file to its last; a process that also answers requests (the
 * watcher beside an MCP or HTTP server) yields here between files and between sessions rendered.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
