import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHttpApp } from '../../src/interfaces/http/app.js';
import { type ConfinedWorld, MARKER, type McpLink, SECRET, answerText, makeConfinedWorld } from './confined-world.js';

/**
 * Every path an agent can name is confined to the caller's project and the moon home. A corpus of traversal
 * forms goes through every path-taking tool argument and HTTP parameter; things planted outside (an index and a
 * history holding MARKER, a file holding SECRET) never show, and a refusal reads the same whether or not the
 * file it names exists. Controls prove the markers do show when such files are read from inside.
 */
let world: ConfinedWorld;
let mcp: McpLink;

beforeAll(async () => {
  world = await makeConfinedWorld();
  mcp = await world.connect();
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await world?.cleanup();
});

/** Traversal forms for a file argument, relative to the project or absolute. */
function traversalCorpus(): string[] {
  const up = relative(world.project, world.outside);
  return [
    `${up}/history.index.json`,
    `${up}/secret.txt`,
    `./${up}/history.index.json`,
    `.puffin/../${up}/history.index.json`,
    `${'../'.repeat(30)}${world.outside.slice(1)}/history.index.json`,
    join(world.outside, 'history.index.json'),
    join(world.outside, 'secret.txt'),
    join(world.outside, 'secret.json'),
    join(world.outside, 'no-such-file.json'),
    `${world.project}/../${up.replace(/^\.\.\//, '')}/history.index.json`,
    '/etc/passwd',
    '/etc/shadow',
    '/proc/self/environ',
    '../../../../../../../../etc/shadow',
    'link-index.json',
    'link-dir/history.index.json',
    'link-dir/secret.txt',
    'link-secret',
    'dangling.json',
    `${up.replace(/\//g, '%2F')}%2Fhistory.index.json`,
    `..%2f..%2f..%2fetc%2fpasswd`,
    `%2e%2e/${up}/history.index.json`,
    `%2E%2E%2Fsecret.txt`,
    `..%5c..%5cetc%5cpasswd`,
    `history.index.json\u0000.txt`,
    `${up}/secret.txt\u0000`,
    `${'../'.repeat(1500)}etc/passwd`,
    `${'a/'.repeat(2100)}x.json`,
    `${'x'.repeat(300)}.json`,
    `file://${join(world.outside, 'history.index.json')}`,
    `~/${relative(process.env.HOME ?? '/root', join(world.outside, 'history.index.json'))}`,
    `${up}\\history.index.json`,
    `\r\n${up}/history.index.json`,
  ];
}

describe('history_index_query: the index and the history it names stay inside the project or the moon home', () => {
  test('controls: an index or a history read from inside the project shows its marker', async () => {
    const index = await mcp.call('history_index_query', { query: 'regression test', index: 'control/marked.index.json' });
    expect(index.isError, answerText(index)).toBeFalsy();
    expect(answerText(index)).toContain(MARKER);
    const history = await mcp.call('history_index_query', { query: 'regression test', index: 'control/clean.index.json' });
    expect(history.isError, answerText(history)).toBeFalsy();
    expect(answerText(history)).toContain(MARKER);
  });

  test('every traversal form is refused or not found, and nothing planted outside shows', async () => {
    const corpus = traversalCorpus();
    for (const index of corpus) {
      const result = await mcp.call('history_index_query', { query: 'regression test', index });
      const text = answerText(result);
      expect(result.isError, `${JSON.stringify(index.slice(0, 80))}: ${text}`).toBe(true);
      expect(text, JSON.stringify(index.slice(0, 80))).not.toContain(MARKER);
      expect(text).not.toContain(SECRET);
      expect(text).not.toMatch(/root:|PATH=|HOME=/);
    }
    expect(corpus.length).toBeGreaterThanOrEqual(30);
  });

  test('a refusal is the same whether or not the file exists', async () => {
    const up = relative(world.project, world.outside);
    const pairs: Array<[string, string]> = [
      [join(world.outside, 'secret.txt'), join(world.outside, 'no-such-file.txt')],
      [`${up}/history.index.json`, `${up}/no-such.index.json`],
      ['link-secret', 'dangling.json'],
      ['link-dir/secret.txt', 'link-dir/nothing-here.txt'],
      ['/etc/passwd', '/etc/no-such-file-here'],
    ];
    for (const [exists, missing] of pairs) {
      const [a, b] = await Promise.all([mcp.call('history_index_query', { query: 'x', index: exists }), mcp.call('history_index_query', { query: 'x', index: missing })]);
      expect(a.isError).toBe(true);
      expect(answerText(a)).toContain('index: refused');
      expect(answerText(a)).toBe(answerText(b));
    }
  });

  test('an index inside whose history file lies outside: the history is never read', async () => {
    const result = await mcp.call('history_index_query', { query: 'regression test', index: 'leaky.index.json' });
    expect(answerText(result)).not.toContain(MARKER);
    expect(answerText(result)).not.toContain(world.outside);
  });

  test('a file inside that is not JSON: the error names it and quotes none of it', async () => {
    const result = await mcp.call('history_index_query', { query: 'x', index: 'broken.json' });
    expect(result.isError).toBe(true);
    expect(answerText(result)).toContain('broken.json');
    expect(answerText(result)).not.toContain(SECRET);
    expect(answerText(result)).not.toContain(SECRET.slice(0, 8));
  });

  test('the moon home is allowed; the default index still works', async () => {
    const home = await mcp.call('history_index_query', { query: 'x', index: join(world.home.home, 'nothing.index.json') });
    expect(answerText(home)).toMatch(/no history index at/);
    const found = await mcp.call('history_index_query', { query: 'watcher renamed files' });
    expect(found.isError, answerText(found)).toBeFalsy();
  });
});

describe('HTTP: the cwd parameters are checked paths', () => {
  test('every route taking a cwd refuses encoded, NUL, relative and over-long forms with a 400; none echoes anything outside', async () => {
    const app = createHttpApp(world.home.moon, { version: 'test', rate: { perSecond: 1e6, burst: 1e6 } });
    const bad = ['relative/folder', '..', `${world.project}%2F..%2F..`, `${world.project}/%2e%2e/x`, `${world.project}\u0000`, `/${'a'.repeat(5000)}`, `/${'b'.repeat(300)}`];
    const good = [world.outside, join(world.project, 'link-dir'), world.project];
    const json = { 'content-type': 'application/json' };
    const send = (cwd: string): Array<Response | Promise<Response>> => [
      app.request('/v1/recall', { method: 'POST', headers: json, body: JSON.stringify({ query: MARKER, cwd }) }),
      app.request('/v1/memories', { method: 'POST', headers: json, body: JSON.stringify({ text: `remember ${MARKER}`, cwd }) }),
      app.request('/v1/context', { method: 'POST', headers: json, body: JSON.stringify({ task: MARKER, cwd }) }),
      ...['/v1/memories', '/v1/fixes', '/v1/decisions', '/v1/markers'].map((route) => app.request(`${route}?cwd=${encodeURIComponent(cwd)}&q=${MARKER}`)),
    ];
    for (const cwd of bad) {
      for (const response of await Promise.all(send(cwd))) {
        expect(response.status, `${cwd.slice(0, 60)} → ${response.url}`).toBe(400);
        const body = (await response.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe('bad_input');
        expect(body.error.message).toMatch(/^cwd: /);
      }
    }
    for (const cwd of good) {
      for (const response of await Promise.all(send(cwd))) {
        expect(response.status).toBeLessThan(500);
        const text = await response.text();
        expect(text).not.toContain(SECRET);
      }
    }
  });
});
