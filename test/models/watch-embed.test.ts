import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { RecallResult } from '../../src/model.js';
import { createMoon } from '../../src/moon.js';
import { makeTempDir, runMoon } from '../helpers/cli.js';
import { buildTinyModel } from '../helpers/tiny-model.js';
import { claudeSession } from '../helpers/transcripts.js';

/**
 * The watcher indexes through the history plane, which embeds what is new whenever an embedder is configured: with
 * `embed.provider = "transformers"` and a model in the home, each cycle embeds the entries appended since the last.
 */
const scratch = makeTempDir('moon-watch-embed-');
afterAll(() => scratch.cleanup());

/** A model folder copied in by hand (no manifest): found by name all the same. */
function copyModelIn(home: string, name: string): void {
  for (const [path, data] of buildTinyModel().files) {
    if (path === 'onnx/model.onnx') continue;
    const target = join(home, 'models', name, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, data);
  }
}

const turn = (id: string, role: 'user' | 'assistant', at: string, text: string) => ({ id, role, at, text });

describe('the watcher with a transformers model', () => {
  test('each cycle embeds the entries new since the last one', async () => {
    const home = join(scratch.path, 'home');
    const corpus = join(scratch.path, 'corpus');
    mkdirSync(corpus, { recursive: true });
    copyModelIn(home, 'tiny-embed');
    const env = { MOON_HOME: home, MOON_SOURCES: corpus, MOON_INDEX_WORKERS: '0', MOON_EMBED_PROVIDER: 'transformers', MOON_EMBED_MODEL: 'tiny-embed', MOON_FAKE_NOW: '2026-03-10T12:00:00Z' };
    const transcript = join(corpus, 'live.jsonl');
    const first = claudeSession({
      sessionId: 'live',
      cwd: '/work/shop',
      turns: [turn('live-1', 'user', '2026-03-10T10:00:00Z', 'Wrangler deploy to production timed out'), turn('live-2', 'assistant', '2026-03-10T10:01:00Z', 'The rollout to staging worked after the retry')],
    });
    writeFileSync(transcript, first);
    expect((await runMoon(['watch', '--once'], env)).code).toBe(0);
    const afterFirst = JSON.parse((await runMoon(['status', '--json'], env)).stdout);
    expect(afterFirst.embedding_model).toMatchObject({ id: 'transformers:tiny-embed:q8:5' });
    expect(afterFirst.embeddings).toBe(afterFirst.entries);
    expect(afterFirst.entries).toBeGreaterThanOrEqual(2);

    // The session goes on: two more turns about another topic, picked up and embedded by the next cycle.
    const whole = claudeSession({
      sessionId: 'live',
      cwd: '/work/shop',
      turns: [
        turn('live-1', 'user', '2026-03-10T10:00:00Z', 'Wrangler deploy to production timed out'),
        turn('live-2', 'assistant', '2026-03-10T10:01:00Z', 'The rollout to staging worked after the retry'),
        turn('live-3', 'user', '2026-03-10T10:05:00Z', 'Now the postgres migration fails on the orders table'),
        turn('live-4', 'assistant', '2026-03-10T10:06:00Z', 'I fixed the schema and the sqlite tests pass again'),
      ],
    });
    appendFileSync(transcript, whole.slice(first.length));
    expect((await runMoon(['watch', '--once'], env)).code).toBe(0);
    const afterSecond = JSON.parse((await runMoon(['status', '--json'], env)).stdout);
    expect(afterSecond.entries).toBeGreaterThan(afterFirst.entries);
    expect(afterSecond.embeddings).toBe(afterSecond.entries);
    // "database" is in neither new turn: only their vectors find them.
    const recall = await runMoon(['recall', 'database', '--all-projects', '--group', 'message', '--json'], env);
    expect(recall.code, recall.stderr).toBe(0);
    expect((JSON.parse(recall.stdout) as RecallResult).matches[0]!.metadata.message_ids[0]).toMatch(/^live-[34]$/);
  });

  test('a long-running moon starts embedding once the missing model arrives, without a restart', async () => {
    const home = join(scratch.path, 'late-home');
    const corpus = join(scratch.path, 'late-corpus');
    mkdirSync(corpus, { recursive: true });
    writeFileSync(
      join(corpus, 'late.jsonl'),
      claudeSession({ sessionId: 'late', turns: [turn('late-1', 'user', '2026-03-10T10:00:00Z', 'The stripe webhook for the refund returned 401')] }),
    );
    const notices: string[] = [];
    const moon = createMoon(loadConfig({ env: { MOON_HOME: home, MOON_EMBED_PROVIDER: 'transformers', MOON_EMBED_MODEL: 'tiny-embed', MOON_INDEX_WORKERS: '0' } }), Date.now, {
      onNotice: (message) => notices.push(message),
    });
    try {
      expect((await moon.history.index({ roots: [corpus] })).embeddings).toBeNull();
      expect((await moon.history.index({ roots: [corpus] })).embeddings).toBeNull();
      expect(notices.filter((message) => message.includes('is not in'))).toHaveLength(1);
      copyModelIn(home, 'tiny-embed');
      const report = await moon.history.index({ roots: [corpus] });
      expect(report.embeddings).toMatchObject({ model: 'transformers:tiny-embed:q8:5' });
      expect(report.embeddings!.embedded).toBe(report.embeddings!.total);
    } finally {
      await moon.close();
    }
  });
});
