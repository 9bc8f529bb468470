import { type Entry, createEntry, createSession } from '../model.js';
import { nameProject } from './path-names.js';
import {
  type ParsedBranch,
  type ParsedHistory,
  type ParsedPrompt,
  hashPuffinPrompt,
  isPuffinHistory,
  parsePuffinHistory,
} from './puffin-history.js';
import { streamPuffinHistory } from './puffin-stream.js';
import type { DocumentSession, DocumentSource, ParsedDocument } from './source.js';

/**
 * Puffin (a GUI around Claude Code): `<project>/.puffin/history.json`, one JSON document of branches holding
 * prompts, each prompt with its response, threaded by `parentId`; rewritten whole on every save. One moon session
 * per conversation tree (a root prompt and everything that follows from it), so a tree is re-indexed alone when
 * it changes. docs/formats.md ("Puffin") has the mapping.
 */
export const puffinSource: DocumentSource<ParsedHistory> = {
  kind: 'document',
  name: 'puffin',
  label: 'Puffin',
  fileName: /[\\/]\.puffin[\\/]history\.json$/,
  detect: isPuffinHistory,
  readDocument: parsePuffinHistory,
  streamDocument: streamPuffinHistory,
  parseDocument: mapPuffinHistory,
};

/** The session id of the tree rooted at a prompt: Puffin's prompt ids are unique (UUIDs, time+random). */
export function puffinSessionId(rootId: string): string {
  return `puffin-${rootId}`;
}

/** The project folder: the one holding `.puffin/`, else (a history copied elsewhere) the file's own folder. */
function findProjectFolder(path: string): string | null {
  const match = /^(.*)[\\/]\.puffin[\\/][^\\/]+$/.exec(path) ?? /^(.*)[\\/][^\\/]+$/.exec(path);
  return match && match[1] !== '' ? match[1]! : null;
}

/** Titles are one line: the root's own title, else the first non-empty line of what it asked. */
const TITLE_CHARS = 200;

function titleOf(root: ParsedPrompt): string | null {
  if (root.title !== null && root.title.trim() !== '') return root.title.trim().slice(0, TITLE_CHARS);
  const line = root.content
    .slice(0, 4 * TITLE_CHARS)
    .split('\n')
    // A Markdown heading's marks are not part of the title (`## Sprint Planning Request`).
    .map((text) => text.replace(/^#{1,6}\s+/, '').trim())
    .find((text) => text !== '');
  return line === undefined ? null : line.slice(0, TITLE_CHARS);
}

/** File entries per response: their seq numbers stay below the next prompt's. */
const MAX_FILE_ENTRIES = 998;

/** Puffin's file actions (`read`, `write`, `edit`...) under the tool names moon ranks by side effect. */
function toolNameOf(action: string): string {
  return action === '' ? 'File' : `${action[0]!.toUpperCase()}${action.slice(1)}`;
}

function mapPuffinHistory(history: ParsedHistory, context: { path: string }): ParsedDocument {
  const cwd = findProjectFolder(context.path);
  const project = nameProject(cwd);
  const sessions: DocumentSession[] = [];
  for (const branch of history.branches) {
    for (const tree of splitTrees(branch)) sessions.push(mapTree(tree, branch, { path: context.path, cwd, project }));
  }
  const skipped = history.skipped.map((entry) =>
    entry.branchId === null ? entry.reason : `branch ${entry.branchId}, prompt ${(entry.index ?? 0) + 1}: ${entry.reason}`,
  );
  return { sessions, skipped };
}

/**
 * A branch's conversation trees, each in reading order: the root, then depth first along `children` (a fork's
 * threads one after the other). Trees come in the order of their roots in the branch.
 */
function splitTrees(branch: ParsedBranch): ParsedPrompt[][] {
  const byId = new Map(branch.prompts.map((prompt) => [prompt.id, prompt]));
  const members = new Map<string, ParsedPrompt[]>();
  for (const prompt of branch.prompts) {
    const list = members.get(prompt.rootId) ?? [];
    list.push(prompt);
    members.set(prompt.rootId, list);
  }
  const trees: ParsedPrompt[][] = [];
  for (const [rootId, list] of [...members].sort((a, b) => byId.get(a[0])!.position - byId.get(b[0])!.position)) {
    const ordered: ParsedPrompt[] = [];
    const seen = new Set<string>();
    // Iterative: a thread can be thousands of prompts deep.
    const stack = [byId.get(rootId)!];
    while (stack.length > 0) {
      const prompt = stack.pop()!;
      if (seen.has(prompt.id)) continue;
      seen.add(prompt.id);
      ordered.push(prompt);
      const children = prompt.children.map((id) => byId.get(id)).filter((child) => child !== undefined && child.rootId === rootId);
      for (let index = children.length - 1; index >= 0; index -= 1) stack.push(children[index]!);
    }
    // A prompt its tree claims but no parent lists (inconsistent links): kept, in file order.
    for (const prompt of list) if (!seen.has(prompt.id)) ordered.push(prompt);
    trees.push(ordered);
  }
  return trees;
}

function mapTree(tree: ParsedPrompt[], branch: ParsedBranch, where: { path: string; cwd: string | null; project: string | null }): DocumentSession {
  const root = tree[0]!;
  const sessionId = puffinSessionId(root.id);
  const entries: Entry[] = [];
  let startMs: number | null = null;
  let endMs: number | null = null;
  const track = (ts: number | null): void => {
    if (ts === null) return;
    startMs = startMs === null ? ts : Math.min(startMs, ts);
    endMs = endMs === null ? ts : Math.max(endMs, ts);
  };
  tree.forEach((prompt, index) => {
    const ordinal = index + 1;
    const base = { sessionId, line: ordinal };
    track(prompt.timestamp);
    entries.push(
      createEntry({
        ...base,
        id: prompt.id,
        key: `prompt:${prompt.id}`,
        seq: ordinal * 1000,
        ts: prompt.timestamp,
        role: 'user',
        text: prompt.content,
        parentId: prompt.parentId !== null && !prompt.parentMissing ? prompt.parentId : null,
      }),
    );
    const response = prompt.response;
    if (response === null) return;
    track(response.timestamp);
    entries.push(
      createEntry({
        ...base,
        id: `${prompt.id}:response`,
        key: `response:${prompt.id}`,
        seq: ordinal * 1000 + 1,
        ts: response.timestamp,
        role: 'assistant',
        text: response.content,
        parentId: prompt.id,
      }),
    );
    response.filesModified.slice(0, MAX_FILE_ENTRIES).forEach((file, fileIndex) => {
      entries.push(
        createEntry({
          ...base,
          id: `${prompt.id}:file:${fileIndex}`,
          key: `file:${prompt.id}:${fileIndex}`,
          seq: ordinal * 1000 + 2 + fileIndex,
          ts: response.timestamp,
          role: 'tool',
          text: `${file.action} ${file.path}`,
          toolName: toolNameOf(file.action),
          toolTarget: file.path,
          // Puffin lists a file once the response has done with it.
          status: 'completed',
          parentId: `${prompt.id}:response`,
        }),
      );
    });
  });
  const session = createSession({
    id: sessionId,
    source: 'puffin',
    path: where.path,
    project: where.project,
    cwd: where.cwd,
    branch: branch.name,
    parentSessionId: null,
    startMs,
    endMs,
    title: titleOf(root),
  });
  return {
    chunk: { session, entries, results: [], anchors: [], usage: [], skipped: {}, duplicates: 0, fork: false, carry: null },
    parts: tree.map((prompt) => ({ id: prompt.id, hash: hashPuffinPrompt(prompt) })),
  };
}
