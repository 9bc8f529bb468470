import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RecallResult } from '../../src/model.js';
import { makeTempDir, spawnMoon } from '../helpers/cli.js';
import { startLoopbackServer } from '../helpers/loopback-server.js';
import { startModelHub } from '../helpers/model-hub.js';
import { buildTinyModel } from '../helpers/tiny-model.js';
import { claudeSession } from '../helpers/transcripts.js';

/**
 * `moon models pull|list|remove` through the real CLI (bin/moon.js as a child process) against a loopback hub
 * serving a tiny model the tests build, then `embed.provider = "transformers"` with `embed.model` naming it:
 * `moon index` embeds with the real @huggingface/transformers loader and `moon recall` finds by meaning.
 */
const REPO = 'acme/tiny-embed';
const scratch = makeTempDir('moon-models-cli-');
afterAll(() => scratch.cleanup());
const model = buildTinyModel();
let homes = 0;

function newHome(endpoint: string, extra: Record<string, string> = {}): { home: string; env: Record<string, string> } {
  const home = join(scratch.path, `home-${++homes}`);
  return { home, env: { MOON_HOME: home, MOON_MODELS_ENDPOINT: endpoint, MOON_INDEX_WORKERS: '0', ...extra } };
}

function writeCorpus(): string {
  const corpus = join(scratch.path, 'corpus');
  if (existsSync(corpus)) return corpus;
  mkdirSync(corpus, { recursive: true });
  const session = (id: string, cwd: string, at: string, texts: [string, string]): void =>
    writeFileSync(
      join(corpus, `${id}.jsonl`),
      claudeSession({
        sessionId: id,
        cwd,
        turns: [
          { role: 'user', at: `${at}T10:00:00Z`, id: `${id}-1`, text: texts[0] },
          { role: 'assistant', at: `${at}T10:01:00Z`, id: `${id}-2`, text: texts[1] },
        ],
      }),
    );
  session('db-session', '/work/shop', '2026-03-02', ['The postgres migration failed on the orders table', 'I fixed the schema and ran the migration again with sqlite for the tests']);
  session('deploy-session', '/work/shop', '2026-03-03', ['Wrangler deploy to production timed out', 'The rollout to staging worked, then the production release went out']);
  session('pay-session', '/work/shop', '2026-03-04', ['The stripe webhook for the refund returned 401', 'Fixed the billing signature check; the invoice and card charge are right now']);
  return corpus;
}

describe('moon models pull through the CLI', () => {
  test('interrupted, then resumed; a second pull fetches nothing; list and remove', async () => {
    const hub = await startModelHub(REPO, model.files);
    const onnx = model.files.get('onnx/model_quantized.onnx')!;
    hub.switches.dropAfter.set('onnx/model_quantized.onnx', 300);
    const { home, env } = newHome(hub.endpoint);
    const cut = await spawnMoon(['models', 'pull', REPO], env);
    expect(cut.code).toBe(1);
    expect(cut.stdout).toBe('');
    expect(cut.stderr).toContain(`moon: onnx/model_quantized.onnx: the download from ${hub.endpoint}/acme/tiny-embed/resolve/main/onnx/model_quantized.onnx stopped after 300 of ${onnx.length} bytes`);
    expect(cut.stderr).toContain('(run the same command again: it resumes where this one stopped)');
    expect(existsSync(join(home, 'models', 'tiny-embed'))).toBe(false);

    const resumed = await spawnMoon(['models', 'pull', REPO, '--json'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toBe(''); // no progress bar off a terminal
    const result = JSON.parse(resumed.stdout);
    expect(result).toMatchObject({ name: 'tiny-embed', repo: REPO, status: 'pulled', dtype: 'q8', dims: 5, dir: join(home, 'models', 'tiny-embed'), fetched_bytes: onnx.length - 300 });
    expect(result.resumed_bytes).toBeGreaterThanOrEqual(300);
    expect(hub.fileRequests('onnx/model_quantized.onnx').at(-1)!.headers.range).toBe('bytes=300-');

    const before = hub.requests.length;
    const again = await spawnMoon(['models', 'pull', REPO], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^tiny-embed: already in ${join(home, 'models', 'tiny-embed')} \\(acme/tiny-embed@main, q8, 5 dims, [\\d.]+ KB\\); nothing fetched\\n`));
    expect(again.stdout).toContain('to use it: set embed.provider = "transformers" and embed.model = "tiny-embed" in moon.toml');
    expect(hub.requests.length).toBe(before);

    const list = await spawnMoon(['models', 'list'], env);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(/^NAME\s+DIMS\s+DTYPE\s+SIZE\s+FROM$/);
    expect(list.stdout).toMatch(/^tiny-embed\s+5\s+q8\s+[\d.]+ KB\s+acme\/tiny-embed@main$/m);
    expect(list.stdout).toContain('recall: words only (embed.provider = "none")');
    const listJson = JSON.parse((await spawnMoon(['models', 'list', '--json'], env)).stdout);
    expect(listJson).toMatchObject({ dir: join(home, 'models'), models: [{ name: 'tiny-embed', dims: 5, dtype: 'q8', repo: REPO }], recall: { provider: 'none' } });

    const removed = await spawnMoon(['models', 'remove', 'tiny-embed'], env);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe(`removed tiny-embed (6 files) from ${join(home, 'models', 'tiny-embed')}\n`);
    expect(readdirSync(join(home, 'models'))).toEqual([]);
    const gone = await spawnMoon(['models', 'remove', 'tiny-embed'], env);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(`moon: no model "tiny-embed" in ${join(home, 'models')}`);
  });

  test('a corrupted download: exit 1 naming the file and the URL, and no model folder', async () => {
    const hub = await startModelHub(REPO, model.files);
    hub.switches.corrupt.add('onnx/model_quantized.onnx');
    const { home, env } = newHome(hub.endpoint);
    const run = await spawnMoon(['models', 'pull', REPO], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^moon: onnx\/model_quantized\.onnx: checksum mismatch for http:\/\/127\.0\.0\.1:\d+\/acme\/tiny-embed\/resolve\/main\/onnx\/model_quantized\.onnx: the hub states sha256 [0-9a-f]{64}, the download has [0-9a-f]{64}; the partial file was deleted/);
    expect(existsSync(join(home, 'models', 'tiny-embed'))).toBe(false);
    expect(readdirSync(join(home, 'models'))).toEqual(['.pull-tiny-embed']);
  });

  test('an unreachable hub: exit 1, the URL, and how to bring a model in by hand', async () => {
    const closed = await startLoopbackServer(() => undefined);
    await closed.close();
    const { env } = newHome(closed.baseUrl);
    const run = await spawnMoon(['models', 'pull'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`moon: the file list of Xenova/bge-small-en-v1.5: cannot reach the model hub at ${closed.baseUrl}/api/models/Xenova/bge-small-en-v1.5/tree/main?recursive=true (ECONNREFUSED)`);
    expect(run.stderr).toContain(`(offline? on a machine that reaches ${closed.baseUrl}, run \`moon models pull bge-small-en-v1.5\` and copy its $MOON_HOME/models/bge-small-en-v1.5 folder to`);
    const bad = await spawnMoon(['models', 'pull', 'nonsense-model'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('give its hub repo instead: moon models pull OWNER/nonsense-model');
    const dtype = await spawnMoon(['models', 'pull', '--dtype', 'int4'], env);
    expect(dtype.code).toBe(2);
    expect(dtype.stderr).toContain('--dtype: "int4" is not one of q8, fp32');
  });
});

describe('embed.provider = "transformers" with a pulled model, end to end', () => {
  test('index embeds with the real loader, recall finds by meaning; without the model recall falls back to words with one notice', async () => {
    const hub = await startModelHub(REPO, model.files);
    const { home, env } = newHome(hub.endpoint, { MOON_EMBED_PROVIDER: 'transformers', MOON_EMBED_MODEL: REPO, MOON_FAKE_NOW: '2026-03-10T12:00:00Z' });
    const corpus = writeCorpus();

    // Not pulled yet: doctor says so, and indexing goes on with words only, said once.
    const doctor = JSON.parse((await spawnMoon(['doctor', '--json'], env)).stdout) as { checks: { id: string; status: string; detail: string; fix?: string }[] };
    expect(doctor.checks.find((check) => check.id === 'embed')).toEqual({
      id: 'embed',
      status: 'warn',
      detail: `embed.provider = "transformers" wants the model "tiny-embed", which is not in ${join(home, 'models', 'tiny-embed')}: recall uses words only; no model in the home`,
      fix: `run \`moon models pull ${REPO}\` (offline: copy a pulled model's folder from another machine to ${join(home, 'models', 'tiny-embed')})`,
    });
    const wordsOnly = await spawnMoon(['index', corpus, '--json'], env);
    expect(wordsOnly.code, wordsOnly.stderr).toBe(0);
    expect(JSON.parse(wordsOnly.stdout).embeddings).toBeNull();
    const notice = `moon: embed.model = "${REPO}": the model is not in ${join(home, 'models', 'tiny-embed')}; recall and indexing use words only until it is there (run: moon models pull ${REPO})`;
    expect(wordsOnly.stderr.split('\n').filter((line) => line !== '')).toEqual([notice]);
    const lexical = await spawnMoon(['recall', 'wrangler', '--all-projects', '--json'], env);
    expect(lexical.code).toBe(0);
    expect((JSON.parse(lexical.stdout) as RecallResult).matches[0]!.metadata.session_id).toBe('deploy-session');
    expect(lexical.stderr.split('\n').filter((line) => line !== '')).toEqual([notice]);

    // Pulled: the next index embeds every entry (the lexical index is unchanged), recall uses vectors.
    expect((await spawnMoon(['models', 'pull', REPO], env)).code).toBe(0);
    const indexed = await spawnMoon(['index', corpus, '--json'], env);
    expect(indexed.code, indexed.stderr).toBe(0);
    expect(indexed.stderr).toBe('');
    const embeddings = JSON.parse(indexed.stdout).embeddings;
    expect(embeddings).toMatchObject({ model: 'transformers:tiny-embed:q8:5' });
    expect(embeddings.embedded).toBe(embeddings.total);
    expect(embeddings.total).toBeGreaterThanOrEqual(6);

    // "ship" and "database" appear in no transcript: only meaning finds these sessions.
    for (const [query, session] of [['ship', 'deploy-session'], ['database', 'db-session'], ['payment', 'pay-session']] as const) {
      const recall = await spawnMoon(['recall', query, '--all-projects', '--explain', '--json'], env);
      expect(recall.code, recall.stderr).toBe(0);
      expect(recall.stderr).toBe('');
      const result = JSON.parse(recall.stdout) as RecallResult;
      expect(result.matches[0]!.metadata.session_id, query).toBe(session);
      const explain = result.matches[0]!.metadata.explain as { signals: Record<string, unknown> }[];
      expect(Object.keys(explain[0]!.signals), query).toEqual(['vector']);
    }
    const doctorAfter = JSON.parse((await spawnMoon(['doctor', '--json'], env)).stdout) as { checks: { id: string; status: string; detail: string }[] };
    expect(doctorAfter.checks.find((check) => check.id === 'embed')).toEqual({
      id: 'embed',
      status: 'ok',
      detail: `recall uses words + meaning via transformers: the model "tiny-embed" (${join(home, 'models', 'tiny-embed')})`,
    });
    const list = await spawnMoon(['models', 'list'], env);
    expect(list.stdout).toContain('recall: words + meaning via transformers (tiny-embed)');
  });
});
