import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Entry } from '../../src/model.js';
import { puffinSource, puffinSessionId } from '../../src/sources/puffin.js';
import { hashPuffinPrompt } from '../../src/sources/puffin-history.js';
import type { DocumentSession } from '../../src/sources/source.js';

/** The real history subset (SOURCES.md, "Puffin"): 19 prompts over 13 branches, every edge case of the full file. */
const TEXT = readFileSync(new URL('../fixtures/puffin/history-real-subset-small.json', import.meta.url), 'utf8');
const PATH = '/home/dev/puffin/.puffin/history.json';

type History = { branchOrder: string[]; branches: Record<string, { prompts: Record<string, unknown>[] }>; [key: string]: unknown };
const load = (): History => JSON.parse(TEXT) as History;
const mapHistory = (history: unknown, path = PATH) => puffinSource.parseDocument(puffinSource.readDocument(history), { path });
const sessionOf = (sessions: DocumentSession[], rootId: string): DocumentSession => {
  const found = sessions.find((session) => session.chunk.session.id === puffinSessionId(rootId));
  if (!found) throw new Error(`no session for ${rootId}`);
  return found;
};
const userIds = (session: DocumentSession): string[] => session.chunk.entries.filter((entry) => entry.role === 'user').map((entry) => entry.id);
const roles = (session: DocumentSession): string[] => session.chunk.entries.map((entry) => `${entry.role}:${entry.id}`);

describe('the Puffin adapter on a real history subset', () => {
  const { sessions, skipped } = mapHistory(load());

  it('is detected by content: an object of branches holding prompts arrays', () => {
    expect(puffinSource.detect(load())).toBe(true);
    expect(puffinSource.detect({ branches: { main: { prompts: {} } } })).toBe(false);
    expect(puffinSource.detect([{ branches: {} }])).toBe(false);
    expect(puffinSource.detect({ type: 'session', id: 'x' })).toBe(false);
  });

  it('makes one session per conversation tree, in display order, every prompt in exactly one', () => {
    expect(skipped).toEqual([]);
    expect(sessions.map((session) => session.chunk.session.id)).toEqual([
      'puffin-d4d4553b-533f-41f5-a53f-54fe2af9f77e',
      'puffin-mixuz8xfwvqzwsli5',
      'puffin-mjbdk3fu1cn29aqxe',
      'puffin-miw9p9ddf6481qlsd',
      'puffin-mjgemr768h20qxza1',
      'puffin-mkhvfnibzunc1jg4k',
      'puffin-128c37f7aaaa3333',
      'puffin-mjhiejc9sl109fl94',
    ]);
    const parts = sessions.flatMap((session) => session.parts.map((part) => part.id));
    expect(parts).toHaveLength(19);
    expect(new Set(parts).size).toBe(19);
  });

  it('names the project after the folder holding .puffin/, the branch after the Puffin branch', () => {
    for (const { chunk } of sessions) {
      expect(chunk.session).toMatchObject({ source: 'puffin', path: PATH, project: 'puffin', cwd: '/home/dev/puffin', parentSessionId: null });
      expect(chunk.fork).toBe(false);
    }
    expect(sessionOf(sessions, 'mjgemr768h20qxza1').chunk.session.branch).toBe('UI');
    expect(sessionOf(sessions, 'mixuz8xfwvqzwsli5').chunk.session.branch).toBe('Specifications');
    // A history read from elsewhere (a copy, a test fixture): its own folder is the project.
    expect(mapHistory(load(), '/tmp/copies/history.json').sessions[0]!.chunk.session).toMatchObject({ project: 'copies', cwd: '/tmp/copies' });
    expect(mapHistory(load(), 'C:\\Users\\me\\code\\app\\.puffin\\history.json').sessions[0]!.chunk.session.project).toBe('app');
  });

  it('titles a session by its root: its own title, else its first line without Markdown heading marks', () => {
    expect(sessionOf(sessions, 'mjgemr768h20qxza1').chunk.session.title).toBe('[Sprint] Three-Column Swimlane Layout - UI');
    expect(sessionOf(sessions, 'mkhvfnibzunc1jg4k').chunk.session.title).toBe('Sprint Planning Request');
    expect(sessionOf(sessions, 'mixuz8xfwvqzwsli5').chunk.session.title).toBe("I like your first proposal, let's keep it simple. Let's implement:");
  });

  it('a derivation root with four story-thread children (a fork): root, then each thread with its reply, depth first', () => {
    const tree = sessionOf(sessions, 'mixuz8xfwvqzwsli5');
    const history = load();
    const children = history.branches.specifications!.prompts.find((prompt) => prompt.id === 'mixuz8xfwvqzwsli5')!.children as string[];
    const expected = ['mixuz8xfwvqzwsli5'];
    for (const child of children) {
      expected.push(child);
      expected.push(...(history.branches.specifications!.prompts.find((prompt) => prompt.id === child)!.children as string[]));
    }
    expect(userIds(tree)).toEqual(expected);
    // Story threads have no response (null): a user entry and nothing else.
    const thread = children[0]!;
    const afterThread = roles(tree)[roles(tree).indexOf(`user:${thread}`) + 1];
    expect(afterThread).toBe(`user:${expected[2]}`);
    expect(tree.chunk.entries.find((entry) => entry.id === expected[2])!.parentId).toBe(thread);
  });

  it('a dangling parent starts its own tree, without a parent link', () => {
    const dangling = sessionOf(sessions, 'd4d4553b-533f-41f5-a53f-54fe2af9f77e');
    expect(userIds(dangling)).toEqual(['d4d4553b-533f-41f5-a53f-54fe2af9f77e']);
    expect(dangling.chunk.entries[0]!.parentId).toBeNull();
  });

  it('a 3-deep thread written without children keys is one session, in thread order', () => {
    expect(userIds(sessionOf(sessions, 'mjbdk3fu1cn29aqxe'))).toEqual([
      'mjbdk3fu1cn29aqxe',
      '63444360-3ee8-4c47-821d-0e5d53f1bfd9',
      '30d057b6-9ebe-434b-b5dd-ac1d29143d05',
    ]);
    expect(userIds(sessionOf(sessions, 'mkhvfnibzunc1jg4k'))).toEqual(['mkhvfnibzunc1jg4k', 'mkhvhauvf56ux7xwk']);
  });

  it('a CLI-synced prompt (ISO timestamps, no parentId or children keys, a bare response) is a session of its own', () => {
    const synced = sessionOf(sessions, '128c37f7aaaa3333');
    const raw = load().branches.improvements!.prompts[0]! as { timestamp: string; response: { timestamp: string } };
    expect(synced.chunk.entries.map((entry) => [entry.role, entry.ts])).toEqual([
      ['user', Date.parse(raw.timestamp)],
      ['assistant', Date.parse(raw.response.timestamp)],
    ]);
    expect(synced.chunk.session.startMs).toBe(Date.parse(raw.timestamp));
    expect(synced.chunk.session.branch).toBe('Improvements');
  });

  it('a prompt whose response is null gives only the user entry', () => {
    const pending = sessionOf(sessions, 'miw9p9ddf6481qlsd');
    expect(pending.chunk.entries.map((entry) => entry.role)).toEqual(['user']);
  });

  it('orders entries prompt, response, then the files the response touched, as tool entries', () => {
    const entries = sessionOf(sessions, 'mjgemr768h20qxza1').chunk.entries;
    expect(entries.map((entry) => [entry.role, entry.toolName, entry.seq])).toEqual([
      ['user', null, 1000],
      ['assistant', null, 1001],
      ['tool', 'Write', 1002],
      ['tool', 'Write', 1003],
      ['tool', 'Read', 1004],
    ]);
    const file = entries[2]!;
    expect(file.toolTarget).toMatch(/components\.css$/);
    expect(file.text).toBe(`write ${file.toolTarget}`);
    expect(file.status).toBe('completed');
    expect(file.key).toBe('file:mjgemr768h20qxza1:0');
    expect(entries[1]).toMatchObject({ id: 'mjgemr768h20qxza1:response', key: 'response:mjgemr768h20qxza1', parentId: 'mjgemr768h20qxza1' });
    expect(new Set(entries.map((entry: Entry) => entry.key)).size).toBe(entries.length);
  });

  it('empty branches and branches missing from branchOrder: the latter come after, in file order', () => {
    const history = load();
    expect(history.branchOrder).not.toContain('plugin');
    history.branches.plugin!.prompts.push({ id: 'p-late', parentId: null, content: 'A prompt on a branch branchOrder leaves out', timestamp: 1_767_000_000_000, response: null });
    const again = mapHistory(history).sessions;
    expect(again).toHaveLength(9);
    expect(again.at(-1)!.chunk.session).toMatchObject({ id: 'puffin-p-late', branch: 'Plugin' });
    // An empty branch gives no session.
    expect(again.some((session) => session.chunk.session.branch === 'Architecture')).toBe(false);
  });

  it('skips malformed entries with their reason and maps the rest', () => {
    const history = load();
    history.branches.tmp!.prompts.push(42 as never, { id: 'x1', timestamp: 1 }, { id: 'x2', content: 'hi', timestamp: 'not a date' });
    const again = mapHistory(history);
    expect(again.sessions).toHaveLength(8);
    expect(again.skipped).toEqual(['branch tmp, prompt 2: prompt is not an object', 'branch tmp, prompt 3: prompt x1 has no content string', 'branch tmp, prompt 4: prompt x2 has no readable timestamp']);
  });

  it('hashes each prompt as seed 004 says: id, content and response, whitespace normalised', () => {
    const tree = sessionOf(sessions, 'mjbdk3fu1cn29aqxe');
    const history = load();
    const specs = history.branches.specifications!.prompts;
    const root = specs.find((prompt) => prompt.id === 'mjbdk3fu1cn29aqxe')!;
    const expected = hashPuffinPrompt({ id: root.id as string, content: root.content as string, response: { content: (root.response as { content: string }).content } as never });
    expect(tree.parts[0]).toEqual({ id: 'mjbdk3fu1cn29aqxe', hash: expected });
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
    // Re-indented or re-wrapped text is the same prompt; a changed word is not.
    root.content = `  ${(root.content as string).replace(/ /g, ' \n\t ')}\n\n`;
    expect(sessionOf(mapHistory(history).sessions, 'mjbdk3fu1cn29aqxe').parts[0]!.hash).toBe(expected);
    root.content = `${root.content as string} more`;
    expect(sessionOf(mapHistory(history).sessions, 'mjbdk3fu1cn29aqxe').parts[0]!.hash).not.toBe(expected);
    // A response arriving changes its prompt's hash.
    const pending = history.branches.ui!.prompts.find((prompt) => prompt.id === 'miw9p9ddf6481qlsd')!;
    const before = sessionOf(mapHistory(history).sessions, 'miw9p9ddf6481qlsd').parts[0]!.hash;
    pending.response = { content: 'Done.', timestamp: 1_767_000_000_000 };
    expect(sessionOf(mapHistory(history).sessions, 'miw9p9ddf6481qlsd').parts[0]!.hash).not.toBe(before);
  });

  it('keeps prompt ids named like Object.prototype members as data', () => {
    const history = load();
    history.branches.tmp!.prompts.push(
      { id: '__proto__', parentId: null, content: 'a prompt with an odd id', timestamp: 1_767_000_000_000, response: null },
      { id: 'constructor', parentId: '__proto__', content: 'its reply thread', timestamp: 1_767_000_000_001, response: null },
    );
    const tree = sessionOf(mapHistory(history).sessions, '__proto__');
    expect(userIds(tree)).toEqual(['__proto__', 'constructor']);
  });
});
