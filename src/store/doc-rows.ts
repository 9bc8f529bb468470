import type { DocSection } from './types.js';

/** The columns a doc section is stored in, the same on every engine. */
export interface DocRow {
  namespace_id: string;
  path: string;
  section: number | string;
  heading: string;
  text: string;
  content_hash: string;
  line: number | string;
  repo: string | null;
  security_scope: string;
  trust_class: string;
  created_at_ms: number | string;
  expires_at_ms: number | string | null;
  run_ref: string | null;
}

export function docFromRow(row: DocRow): DocSection {
  return {
    record_kind: 'doc',
    namespace_id: row.namespace_id,
    repo: row.repo,
    security_scope: row.security_scope as DocSection['security_scope'],
    trust_class: row.trust_class as DocSection['trust_class'],
    created_at_ms: Number(row.created_at_ms),
    expires_at_ms: row.expires_at_ms === null ? null : Number(row.expires_at_ms),
    run_ref: row.run_ref ? (JSON.parse(row.run_ref) as DocSection['run_ref']) : null,
    path: row.path,
    section: Number(row.section),
    heading: row.heading,
    text: row.text,
    content_hash: row.content_hash,
    line: Number(row.line),
  };
}

export function docToValues(namespaceId: string, doc: DocSection): unknown[] {
  return [
    namespaceId,
    doc.path,
    doc.section,
    doc.heading,
    doc.text,
    doc.content_hash,
    doc.line,
    doc.repo,
    doc.security_scope,
    doc.trust_class,
    doc.created_at_ms,
    doc.expires_at_ms,
    doc.run_ref ? JSON.stringify(doc.run_ref) : null,
  ];
}

export const DOC_COLUMNS = 'namespace_id, path, section, heading, text, content_hash, line, repo, security_scope, trust_class, created_at_ms, expires_at_ms, run_ref';

/** The words of a free-text query a full-text index can take safely: letters and digits only, at most 32. */
export function docQueryWords(text: string): string[] {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? []).filter((word) => !STOP.has(word));
  return [...new Set(words)].slice(0, 32);
}

const STOP = new Set(['the', 'and', 'or', 'of', 'to', 'in', 'on', 'for', 'is', 'it', 'a', 'an', 'be', 'by', 'with', 'as', 'at', 'this', 'that', 'how', 'do', 'we', 'what']);
