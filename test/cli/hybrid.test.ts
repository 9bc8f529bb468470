import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RecallResult } from '../../src/model.js';
import { makeTempDir, runMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

let root: string;
let home: string;
let corpus: string;
let cleanup: () => void;

// Saturday 2026-02-21 18:39Z is Sunday 05:39 AEDT; Friday 2026-02-20 22:10Z is Saturday 09:10 AEDT.
beforeAll(async () => {
  const temp = makeTempDir('moon-hybrid-');
  root = temp.path;
  cleanup = temp.cleanup;
  home = join(root, 'home');
  corpus = join(root, 'corpus');
  mkdirSync(corpus, { recursive: true });
  const write = (name: string, text: string): void => writeFileSync(join(corpus, name), text);
  write(
    'dawn.jsonl',
    claudeSession({
      sessionId: 'dawn',
      cwd: '/home/dev/shop',
      turns: [
        { role: 'user', at: '2026-02-21T18:39:00Z', id: 'dawn-1', text: 'The deploy failed again with a timeout from the edge worker' },
        { role: 'assistant', at: '2026-02-21T18:40:00Z', id: 'dawn-2', text: 'The deploy timeout comes from the worker bundle size; I split the bundle.' },
      ],
    }),
  );
  write(
    'dawn-later.jsonl',
    claudeSession({
      sessionId: 'dawn-later',
      cwd: '/home/dev/books',
      turns: [
        { role: 'user', at: '2026-03-14T18:35:00Z', id: 'later-1', text: 'Reviewed the invoice rounding rules with the accountant' },
      ],
    }),
  );
  write(
    'saturday.jsonl',
    claudeSession({
      sessionId: 'saturday',
      cwd: '/home/dev/shop',
      turns: [
        { role: 'user', at: '2026-02-20T22:10:00Z', id: 'sat-1', text: 'Can we deploy the shop to the staging environment first?' },
        { role: 'assistant', at: '2026-02-20T22:12:00Z', id: 'sat-2', text: 'Deployed the shop to staging; the smoke tests pass there.' },
      ],
    }),
  );
  write(
    'march.jsonl',
    claudeSession({
      sessionId: 'march',
      cwd: '/home/dev/shop',
      turns: [
        { role: 'user', at: '2026-03-10T01:00:00Z', id: 'mar-1', text: 'Deploy the shop to production please, staging looked fine' },
        { role: 'assistant', at: '2026-03-10T01:05:00Z', id: 'mar-2', text: 'Production deploy done; renderProjection and wrangler.toml unchanged.' },
        { role: 'assistant', at: '2026-03-10T01:06:00Z', id: 'mar-3', text: '部署已完成，生产环境运行正常。' },
      ],
    }),
  );
  write(
    'config.jsonl',
    claudeSession({
      sessionId: 'config',
      cwd: '/home/dev/api',
      turns: [
        { role: 'assistant', at: '2026-03-11T01:00:00Z', id: 'cfg-read', tool: { name: 'Read', input: { file_path: '/home/dev/api/config.toml' }, result: 'port = 8080' } },
        { role: 'assistant', at: '2026-03-11T01:01:00Z', id: 'cfg-edit', tool: { name: 'Edit', input: { file_path: '/home/dev/api/config.toml', old_string: 'port = 8080', new_string: 'port = 9090' }, result: 'The file config.toml has been updated.' } },
      ],
    }),
  );
  write(
    'contaminated.jsonl',
    claudeSession({
      sessionId: 'contaminated',
      cwd: '/home/dev/api',
      turns: [
        { role: 'user', at: '2026-03-12T01:00:00Z', id: 'ct-1', text: 'Please fix the flaky pagination test in the orders endpoint' },
        { role: 'assistant', at: '2026-03-12T01:02:00Z', id: 'ct-2', text: 'Fixed the flaky pagination test: the orders query now sorts by id before paging.' },
        { role: 'assistant', at: '2026-03-12T01:05:00Z', id: 'ct-3', tool: { name: 'Bash', input: { command: 'moon recall "kubernetes ingress certificate"' }, result: 'infra | s-77 | 2 matches | 2026-01-02T00:00:00Z | score 1.2\n[assistant] The kubernetes ingress certificate is renewed by cert-manager every sixty days using the letsencrypt production issuer' } },
        { role: 'assistant', at: '2026-03-12T01:06:00Z', id: 'ct-4', text: 'From memory: the kubernetes ingress certificate is renewed by cert-manager every sixty days using the letsencrypt production issuer, so nothing to do.' },
      ],
    }),
  );
  const run = await runMoon(['index', corpus, '--home', home, '--json']);
  expect(run.code, run.stderr).toBe(0);
});

afterAll(() => cleanup());

async function recall(args: string[], env: Record<string, string> = {}): Promise<RecallResult> {
  const run = await runMoon(['recall', ...args, '--home', home, '--json'], env);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as RecallResult;
}

const NOW = ['--now', '2026-02-23T12:00:00+11:00', '--tz', 'Australia/Sydney'];

describe('time in queries', () => {
  test('"what happened at 05:39 AEDT" finds the session at that minute, first', async () => {
    const result = await recall(['what happened at 05:39 AEDT', ...NOW]);
    expect(result.matches[0]!.metadata.session_id).toBe('dawn');
    expect(result.matches[0]!.metadata.time_window).toBe('inside');
  });

  test('a clock time with no date means that time on any day, most recent first, up to --now', async () => {
    // No --now: today is long after both sessions, and both lie at 05:35–05:39 AEDT on their own days.
    const anyDay = await recall(['what happened at 05:39 AEDT', '--tz', 'Australia/Sydney']);
    expect(anyDay.matches.slice(0, 2).map((match) => match.metadata.session_id)).toEqual(['dawn-later', 'dawn']);
    expect(anyDay.matches.slice(0, 2).every((match) => match.metadata.time_window === 'inside')).toBe(true);
    // 05:39 in Sydney's own zone is 05:39 AEDT in February and March too.
    const local = await recall(['at 5:39am', '--tz', 'Australia/Sydney', '--group', 'message']);
    expect(local.matches.map((match) => match.metadata.message_ids[0]).slice(0, 3)).toEqual(['later-1', 'dawn-2', 'dawn-1']);
    // A day word narrows it to that day.
    const sunday = await recall(['what happened at 05:39 AEDT on 22 Feb 2026', '--tz', 'Australia/Sydney']);
    expect(sunday.matches[0]!.metadata.session_id).toBe('dawn');
    expect(sunday.matches.filter((match) => match.metadata.time_window === 'inside').map((match) => match.metadata.session_id)).toEqual(['dawn']);
  });

  test('the same clock time in another zone names another instant', async () => {
    // 05:39 PST on 2026-02-21 is 13:39Z, when nothing happened: nothing is inside the window
    const result = await recall(['deploy at 05:39 PST on 2026-02-21', ...NOW]);
    expect(result.matches.every((match) => match.metadata.time_window === 'outside')).toBe(true);
  });

  test('"last Saturday morning" filters before ranking; time words leave the lexical query', async () => {
    const result = await recall(['deploy last Saturday morning', ...NOW]);
    expect(result.matches[0]!.metadata.session_id).toBe('saturday');
    expect(result.matches[0]!.metadata.time_window).toBe('inside');
    const baseline = await recall(['deploy last Saturday morning', ...NOW, '--strategy', 'bm25']);
    expect(baseline.matches.map((match) => match.metadata.session_id)).not.toEqual(result.matches.map((match) => match.metadata.session_id));
  });

  test('"in March" keeps March first and marks what lies outside', async () => {
    const result = await recall(['deploy in March', '--now', '2026-04-01T00:00:00Z', '--tz', 'UTC']);
    expect(result.matches[0]!.metadata.session_id).toBe('march');
    const windows = result.matches.map((match) => match.metadata.time_window);
    expect(windows[0]).toBe('inside');
    expect(windows).toContain('outside');
    // every in-window match comes before every match from outside the window
    expect(windows).toEqual([...windows].sort());
  });

  test('early in the session is relative to each session', async () => {
    const result = await recall(['early in the session deploy shop', ...NOW, '--group', 'message', '--limit', '20']);
    const ids = result.matches.filter((match) => match.metadata.time_window === 'inside').map((match) => match.metadata.message_ids[0]);
    expect(ids).toContain('sat-1');
    expect(ids).not.toContain('sat-2');
  });
});

describe('lexical signals', () => {
  test('partial words, identifiers and CJK are found through the trigram index', async () => {
    const partial = await recall(['wrangl', '--group', 'message']);
    expect(partial.matches[0]!.metadata.message_ids).toEqual(['mar-2']);
    const identifier = await recall(['renderProj', '--group', 'message']);
    expect(identifier.matches[0]!.metadata.message_ids).toEqual(['mar-2']);
    const cjk = await recall(['生产环境', '--group', 'message']);
    expect(cjk.matches[0]!.metadata.message_ids).toEqual(['mar-3']);
  });

  test('a write outranks a read of the same file (side-effect priority), and --explain says why', async () => {
    const result = await recall(['config.toml', '--group', 'message', '--explain']);
    expect(result.matches.slice(0, 2).map((match) => match.metadata.message_ids[0])).toEqual(['cfg-edit', 'cfg-read']);
    const explain = result.matches[0]!.metadata.explain as { boosts: { name: string; factor: number }[]; fused: number; score: number }[];
    expect(explain[0]!.boosts.map((boost) => boost.name)).toContain('priority:high');
    const product = explain[0]!.boosts.reduce((value, boost) => value * boost.factor, explain[0]!.fused);
    expect(explain[0]!.score).toBeCloseTo(product, 5);
    expect(result.matches[0]!.score).toBeCloseTo(explain[0]!.score, 5);
  });

  test('--explain in human output lists signals, and which terms matched where', async () => {
    const run = await runMoon(['recall', 'config.toml', '--explain', '--home', home]);
    expect(run.stdout).toMatch(/explain cfg-edit: lexical #1 \(\+[\d.]+\)/);
    expect(run.stdout).toMatch(/terms: config\.toml in text, target/);
    const words = await runMoon(['recall', 'deploy timeout', '--explain', '--home', home, ...NOW]);
    expect(words.stdout).toMatch(/terms: deploy in text; timeout in text/);
    // A word no message holds is said to be unmatched, not guessed to be in a neighbour.
    const absent = await runMoon(['recall', 'deploy quokkaflux', '--explain', '--home', home, ...NOW]);
    expect(absent.stdout).toMatch(/terms: deploy in text; quokkaflux not matched/);
    expect(absent.stdout).not.toMatch(/quokkaflux in neighbour/);
    // A word only the next message holds matched through the index's context column: the neighbour is named.
    const near = await runMoon(['recall', 'edge bundle', '--group', 'message', '--explain', '--home', home]);
    expect(near.stdout).toMatch(/terms: edge in text; bundle in neighbour dawn-2/);
  });
});

describe('recall contamination', () => {
  test('recalled text is gone, unrelated earlier work of the same session is still found', async () => {
    const quoted = await recall(['kubernetes ingress certificate cert-manager', '--group', 'message']);
    expect(quoted.matches.map((match) => match.metadata.session_id)).not.toContain('contaminated');
    const earlier = await recall(['flaky pagination test', '--group', 'message']);
    expect(earlier.matches.map((match) => match.metadata.message_ids[0])).toEqual(expect.arrayContaining(['ct-1', 'ct-2']));
  });
});

describe('semantic signal through an openai-compatible endpoint', () => {
  // A loopback server speaking /v1/embeddings: bag-of-concepts vectors where synonyms share a dimension,
  // so "automobile" and "car" are neighbours without sharing a word.
  const CONCEPTS: Record<string, number> = { car: 0, automobile: 0, vehicle: 0, garage: 1, parking: 1, invoice: 2, bill: 2, payment: 2 };
  let server: ReturnType<typeof createServer>;
  let baseUrl = '';
  let requests = 0;
  const embed = (text: string): number[] => {
    const vector = new Array(8).fill(0.01);
    for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
      const index = CONCEPTS[word];
      if (index !== undefined) vector[index] += 1;
      else vector[3 + (word.length % 5)] += 0.05;
    }
    return vector;
  };

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        requests += 1;
        const input = (JSON.parse(body) as { input: string[] }).input;
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ data: input.map((text, index) => ({ index, embedding: embed(text) })), model: 'concepts' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('a paraphrase with no shared word is found by the vector signal; status shows coverage', async () => {
    const vhome = join(root, 'vector-home');
    const vcorpus = join(root, 'vector-corpus');
    mkdirSync(vcorpus, { recursive: true });
    writeFileSync(
      join(vcorpus, 'v.jsonl'),
      claudeSession({
        sessionId: 'v',
        turns: [
          { role: 'user', at: '2026-03-01T10:00:00Z', id: 'v-1', text: 'The car makes a strange noise when braking downhill' },
          { role: 'user', at: '2026-03-01T10:05:00Z', id: 'v-2', text: 'Please send the invoice to the accounting team today' },
        ],
      }),
    );
    const env = { MOON_EMBED_PROVIDER: 'openai-compatible', MOON_EMBED_BASE_URL: baseUrl, MOON_EMBED_MODEL: 'concepts' };
    const indexed = await runMoon(['index', vcorpus, '--home', vhome, '--json'], env);
    expect(indexed.code, indexed.stderr).toBe(0);
    expect(JSON.parse(indexed.stdout).embeddings).toMatchObject({ embedded: 2, total: 2 });
    const status = JSON.parse((await runMoon(['status', '--home', vhome, '--json'], env)).stdout);
    expect(status).toMatchObject({ embeddings: 2, embedding_model: { dims: 8 } });
    const result = JSON.parse((await runMoon(['recall', 'automobile vehicle', '--home', vhome, '--json', '--group', 'message', '--explain'], env)).stdout) as RecallResult;
    expect(result.matches[0]!.metadata.message_ids).toEqual(['v-1']);
    const explain = result.matches[0]!.metadata.explain as { signals: Record<string, unknown> }[];
    expect(Object.keys(explain[0]!.signals)).toEqual(['vector']);
    const before = requests;
    const again = await runMoon(['index', vcorpus, '--home', vhome, '--json'], env);
    expect(JSON.parse(again.stdout).embeddings).toMatchObject({ embedded: 2, total: 2 });
    expect(requests - before).toBeLessThanOrEqual(1); // nothing re-embedded (at most the dimension probe)
  });
});
