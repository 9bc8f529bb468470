import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/embed/embedder.js';
import { cosineSimilarity, createEmbedder } from '../../src/embed/index.js';
import { LOCAL_PACKAGES } from '../../src/embed/local.js';

const require = createRequire(import.meta.url);
const missing = Object.values(LOCAL_PACKAGES).filter((pkg) => {
  try {
    require.resolve(pkg);
    return false;
  } catch {
    return true;
  }
});
const skipReason = missing.length > 0 ? ` (skipped: optional package${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not installed)` : '';

describe.skipIf(missing.length > 0)(`local provider: Universal Sentence Encoder lite, offline${skipReason}`, () => {
  let embedder: Embedder | null = null;
  afterAll(async () => {
    await embedder?.close?.();
  });

  it('loads lazily from the npm package and scores similar sentences above unrelated ones', async () => {
    const listenersBefore = [process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')];
    embedder = await createEmbedder({ provider: 'local', batch_size: 2 });
    expect(embedder).not.toBeNull();
    expect(embedder!.dims).toBe(512);
    expect(embedder!.id).toMatch(/^local:use-lite-en@\d+\.\d+\.\d+:512$/);

    const [query, paraphrase, unrelated, related] = await embedder!.embed([
      'How do I fix the failing database migration?',
      'The schema migration for the database is broken, how can I repair it?',
      'My cat likes to sleep in the afternoon sun.',
      'Running the SQL migrations against the production database failed.',
    ]);
    for (const vector of [query, paraphrase, unrelated, related]) {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector!.length).toBe(512);
      expect(Math.hypot(...vector!)).toBeCloseTo(1, 4);
    }
    const similar = cosineSimilarity(query!, paraphrase!);
    const far = cosineSimilarity(query!, unrelated!);
    expect(similar).toBeGreaterThan(far + 0.3);
    expect(cosineSimilarity(query!, related!)).toBeGreaterThan(far);

    // TensorFlow.js' WASM glue adds process-wide listeners that rethrow; the provider takes them off again.
    expect([process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')]).toEqual(listenersBefore);
  });

  it('is deterministic, handles empty input and blank texts, and runs concurrent calls one at a time', async () => {
    embedder ??= await createEmbedder({ provider: 'local' });
    expect(await embedder!.embed([])).toEqual([]);
    const [a, b] = await Promise.all([embedder!.embed(['same text', '']), embedder!.embed(['same text'])]);
    expect(Array.from(a![0]!)).toEqual(Array.from(b![0]!));
    expect(a![1]!.length).toBe(512);
  });
});
