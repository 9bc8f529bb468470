import { existsSync, statSync } from 'node:fs';
import { resolveNamespace } from '../memory/records.js';
import type { FixPort } from '../store/ports.js';
import { hashFileOnDisk } from './extract.js';
import { buildFixPatterns, selectPatterns } from './patterns.js';
import type { FixPattern } from './types.js';

export interface FixesRequest {
  /** A signature, an error text (normalised to its signature), or words every pattern shown must contain. */
  query?: string | null;
  /** A namespace id (`github.com/acme/shop`, `path:/home/dev/x`) or a project directory. */
  namespace?: string | null;
  /** Every namespace, each pattern still built from its own namespace's facts only. */
  allNamespaces?: boolean;
  /** Where the caller stands (default: the process's working directory): its namespace is the default scope. */
  cwd?: string;
  /** At most this many patterns (default 20). */
  limit?: number;
}

export interface FixesResult {
  /**
   * Which namespace the patterns come from (null: all). `widened` when the working directory matched no indexed
   * project, so every namespace stays in reach (seed 003 part 10).
   */
  scope: { namespace: string | null; all: boolean; widened: boolean };
  patterns: FixPattern[];
}

const DEFAULT_LIMIT = 20;

/** Fix patterns for a caller: scoped to a namespace unless asked for all, ranked by how often they worked. */
export async function queryFixes(port: FixPort, request: FixesRequest, hashFile: (path: string) => string | null = hashFileOnDisk): Promise<FixesResult> {
  let namespace: string | null = null;
  let widened = false;
  if (!request.allNamespaces) {
    if (request.namespace) {
      namespace = isDirectory(request.namespace) ? resolveNamespace(request.namespace).namespace_id : request.namespace;
    } else {
      const here = resolveNamespace(request.cwd ?? process.cwd()).namespace_id;
      const known = await port.listNamespaces();
      if (known.includes(here)) namespace = here;
      else widened = true;
    }
  }
  const events = await port.listEvents({ namespaces: namespace === null ? null : [namespace] });
  const patterns = selectPatterns(buildFixPatterns(events, hashFile), request.query ?? null);
  return { scope: { namespace, all: namespace === null, widened }, patterns: patterns.slice(0, request.limit ?? DEFAULT_LIMIT) };
}

function isDirectory(value: string): boolean {
  try {
    return (value.startsWith('/') || value.startsWith('.') || value.startsWith('~')) && existsSync(value) && statSync(value).isDirectory();
  } catch {
    return false;
  }
}
