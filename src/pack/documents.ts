import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Namespace } from '../records/envelope.js';
import type { DocPort } from '../store/ports.js';
import type { DocSection } from '../store/types.js';
import { type PackRequest, type PackSubsystem, SubsystemUnavailable } from './types.js';

/**
 * The documents plane: the repository's own docs — README, CHANGELOG, CONTRIBUTING and the like at the top,
 * and every markdown or text file under docs/, doc/, adr/ and their kin — cut into sections at headings, as
 * `doc` records. Indexing is incremental: a file whose content hash is already held is not touched; a file that
 * is gone is removed.
 */
const DOC_EXTENSIONS = /\.(md|markdown|mdx|txt|rst|adoc)$/i;
const DOC_FOLDERS = new Set(['docs', 'doc', 'adr', 'adrs', 'architecture', 'design', 'rfcs', 'decisions']);
const SKIP_FOLDERS = new Set(['node_modules', '.git', 'dist', 'build', 'vendor', '.venv', 'target', 'coverage']);
const MAX_FILE_BYTES = 1024 * 1024;
/** A section longer than this is cut again at paragraph breaks (what a pack item can reasonably carry). */
const MAX_SECTION_CHARS = 2400;

/** The doc files of a repository, relative to its root with `/` separators, sorted. */
export function findDocFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, inDocs: boolean, depth: number): void => {
    if (depth > 8) return;
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      let stat;
      try {
        stat = statSync(path);
      } catch {
        continue;
      }
      if (stat.isDirectory()) {
        if (SKIP_FOLDERS.has(name) || (name.startsWith('.') && name !== '.github')) continue;
        const docs = inDocs || DOC_FOLDERS.has(name.toLowerCase());
        // Outside doc folders only the top level is read (and the folders that may hold doc folders).
        walk(path, docs, depth + 1);
      } else if (stat.isFile() && stat.size <= MAX_FILE_BYTES && DOC_EXTENSIONS.test(name) && (inDocs || depth === 0)) {
        found.push(relative(root, path).split(sep).join('/'));
      }
    }
  };
  walk(root, false, 0);
  return found.sort();
}

/** A file's sections: cut at markdown headings (and at paragraph breaks when long), each with its heading. */
export function splitSections(text: string, fileName: string): { heading: string; text: string; line: number }[] {
  const sections: { heading: string; text: string; line: number }[] = [];
  let heading = fileName;
  let start = 1;
  let body: string[] = [];
  let inFence = false;
  const flush = (): void => {
    const joined = body.join('\n').trim();
    if (joined !== '') for (const part of cutLong(joined)) sections.push({ heading, text: part, line: start });
    body = [];
  };
  text.split(/\r?\n/).forEach((line, index) => {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const match = inFence ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (match) {
      flush();
      heading = match[1]!;
      start = index + 1;
      return;
    }
    body.push(line);
  });
  flush();
  return sections;
}

function cutLong(text: string): string[] {
  if (text.length <= MAX_SECTION_CHARS) return [text];
  const parts: string[] = [];
  let current = '';
  for (const paragraph of text.split(/\n{2,}/)) {
    if (current !== '' && current.length + paragraph.length + 2 > MAX_SECTION_CHARS) {
      parts.push(current);
      current = '';
    }
    current = current === '' ? paragraph : `${current}\n\n${paragraph}`;
    while (current.length > MAX_SECTION_CHARS) {
      parts.push(current.slice(0, MAX_SECTION_CHARS));
      current = current.slice(MAX_SECTION_CHARS);
    }
  }
  if (current !== '') parts.push(current);
  return parts;
}

export interface DocsIndexReport {
  namespace_id: string;
  root: string;
  files: number;
  indexed: string[];
  unchanged: number;
  removed: string[];
  sections: number;
}

/** Index `root`'s docs into the namespace: changed and new files replaced, vanished ones removed, the rest kept. */
export async function indexDocs(docs: DocPort, namespace: Namespace, root: string, nowMs: number): Promise<DocsIndexReport> {
  const held = new Map((await docs.listDocFiles(namespace.namespace_id)).map((file) => [file.path, file.content_hash]));
  const paths = findDocFiles(root);
  const changes: { path: string; sections: DocSection[] }[] = [];
  let unchanged = 0;
  let sections = 0;
  for (const path of paths) {
    let text: string;
    try {
      text = readFileSync(join(root, path), 'utf8');
    } catch {
      continue;
    }
    const hash = createHash('sha256').update(text).digest('hex');
    if (held.get(path) === hash) {
      unchanged += 1;
      continue;
    }
    const cut = splitSections(text, path.split('/').pop()!).map(
      (part, index): DocSection => ({
        record_kind: 'doc',
        namespace_id: namespace.namespace_id,
        repo: namespace.repo,
        security_scope: 'project',
        trust_class: 'raw',
        created_at_ms: nowMs,
        expires_at_ms: null,
        run_ref: null,
        path,
        section: index,
        heading: part.heading,
        text: part.text,
        content_hash: hash,
        line: part.line,
      }),
    );
    sections += cut.length;
    changes.push({ path, sections: cut });
  }
  const present = new Set(paths);
  const removed = [...held.keys()].filter((path) => !present.has(path));
  for (const path of removed) changes.push({ path, sections: [] });
  if (changes.length > 0) await docs.replaceDocFiles(namespace.namespace_id, changes);
  return {
    namespace_id: namespace.namespace_id,
    root,
    files: paths.length,
    indexed: changes.filter((change) => change.sections.length > 0).map((change) => change.path),
    unchanged,
    removed,
    sections,
  };
}

/** The documents subsystem: sections matching the task (and the error), within the namespace. */
export function documentsSubsystem(docs: () => Promise<DocPort>, nowMs: () => number, deadlineMs = 300): PackSubsystem {
  return {
    name: 'documents',
    deadlineMs,
    async gather(request: PackRequest) {
      const port = await docs();
      const hits = await port.searchDocs({ namespace_id: request.namespace_id, text: [request.task, request.error ?? ''].join(' '), limit: 8, nowMs: nowMs() });
      if (hits.length === 0 && request.namespace_id !== null && (await port.listDocFiles(request.namespace_id)).length === 0) {
        throw new SubsystemUnavailable('missing', 'no documents are indexed for this namespace (moon docs index)');
      }
      return hits.map(({ section }) => ({
        text: section.heading === section.path.split('/').pop() ? section.text : `${section.heading}\n${section.text}`,
        source: `${section.path}:${section.line}`,
        record_kind: 'doc' as const,
        trust_class: section.trust_class,
        provenance: { path: section.path, line: section.line, section: section.section, content_hash: section.content_hash, namespace_id: section.namespace_id },
        recency: new Date(section.created_at_ms).toISOString(),
      }));
    },
  };
}
