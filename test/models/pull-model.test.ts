import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { failure } from '../helpers/moon-error.js';
import { describeHub } from '../../src/models/hub-client.js';
import { listModels } from '../../src/models/list-models.js';
import { readManifest } from '../../src/models/manifest.js';
import { type PullRequest, pullModel } from '../../src/models/pull-model.js';
import { removeModel } from '../../src/models/remove-model.js';
import { gitBlobSha1, sha256 } from '../../src/models/verify.js';
import { makeTempDir } from '../helpers/cli.js';
import { type ModelHub, startModelHub } from '../helpers/model-hub.js';
import { buildTinyModel } from '../helpers/tiny-model.js';

const REPO = 'acme/tiny-embed';
const scratch = makeTempDir('moon-pull-');
afterAll(() => scratch.cleanup());
const model = buildTinyModel();
const NOW = Date.UTC(2026, 10, 29, 12);
let homes = 0;

function newHome(): { home: string; models: string } {
  const home = join(scratch.path, `home-${++homes}`);
  mkdirSync(home, { recursive: true });
  return { home, models: join(home, 'models') };
}

function pull(hub: ModelHub, place: { home: string; models: string }, request: PullRequest = {}) {
  return pullModel({ home: place.home, modelsDir: place.models, hub: describeHub({ endpoint: hub.endpoint, tokenEnv: 'NO_TOKEN' }, {}), nowMs: NOW }, { spec: REPO, ...request });
}

const byteRequests = (hub: ModelHub): number => hub.requests.filter((request) => request.server === 'cdn' || request.url.includes('/resolve/')).length;

describe('moon models pull, in process', () => {
  test('fetches what the embedder needs (the quantised ONNX file), verified, with a manifest; a second pull fetches nothing', async () => {
    const hub = await startModelHub(REPO, model.files);
    const place = newHome();
    const progress: number[] = [];
    const result = await pull(hub, place, { onProgress: ({ done }) => progress.push(done) });
    const dir = join(place.models, 'tiny-embed');
    const wanted = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'onnx/model_quantized.onnx'];
    const bytes = wanted.reduce((sum, path) => sum + model.files.get(path)!.length, 0);
    expect(result).toEqual({
      name: 'tiny-embed',
      repo: REPO,
      revision: 'main',
      dtype: 'q8',
      dims: 5,
      dir,
      status: 'pulled',
      files: wanted.map((path) => ({ path, size: model.files.get(path)!.length })),
      bytes,
      fetched_bytes: bytes,
      resumed_bytes: 0,
    });
    expect(progress.at(-1)).toBe(bytes);
    for (const path of wanted) expect(readFileSync(join(dir, path)).equals(model.files.get(path)!), path).toBe(true);
    expect(existsSync(join(dir, 'onnx', 'model.onnx'))).toBe(false);
    expect(readManifest(dir)).toEqual({
      format: 1,
      name: 'tiny-embed',
      repo: REPO,
      revision: 'main',
      endpoint: hub.endpoint,
      dtype: 'q8',
      dims: 5,
      files: wanted.map((path) =>
        path.endsWith('.onnx')
          ? { path, size: model.files.get(path)!.length, sha256: sha256(model.files.get(path)!) }
          : { path, size: model.files.get(path)!.length, git_sha1: gitBlobSha1(model.files.get(path)!) },
      ),
      pulled_at: '2026-11-29T12:00:00.000Z',
    });
    // Nothing left of the staging folder or the lock.
    expect(readdirSync(place.models)).toEqual(['tiny-embed']);
    const before = hub.requests.length;
    const again = await pull(hub, place);
    expect(again).toMatchObject({ status: 'present', fetched_bytes: 0, dtype: 'q8', dims: 5 });
    expect(hub.requests.length).toBe(before); // not even the listing
    expect(listModels(place.models)).toEqual([
      { name: 'tiny-embed', dir, repo: REPO, revision: 'main', dtype: 'q8', dims: 5, bytes: statSync(join(dir, 'moon-model.json')).size + bytes, pulled_at: '2026-11-29T12:00:00.000Z' },
    ]);
  });

  test('--dtype fp32 fetches onnx/model.onnx; asking another dtype of a model that is there is an error, not a download', async () => {
    const hub = await startModelHub(REPO, model.files);
    const place = newHome();
    const result = await pull(hub, place, { dtype: 'fp32' });
    expect(result.files.at(-1)).toEqual({ path: 'onnx/model.onnx', size: model.files.get('onnx/model.onnx')!.length });
    const error = await failure(pull(hub, place, { dtype: 'q8' }));
    expect(error.message).toBe(`${join(place.models, 'tiny-embed')} holds the fp32 model of ${REPO}, not q8`);
    expect(error.hint).toBe('`moon models remove tiny-embed` first, then pull it with --dtype q8');
  });

  test('a corrupted file: an error naming the file, the URL and both checksums; its part file deleted, no model folder', async () => {
    const hub = await startModelHub(REPO, model.files);
    hub.switches.corrupt.add('onnx/model_quantized.onnx');
    const place = newHome();
    const error = await failure(pull(hub, place));
    expect(error.code).toBe('io');
    expect(error.message).toMatch(
      new RegExp(`^onnx/model_quantized\\.onnx: checksum mismatch for ${hub.endpoint}/acme/tiny-embed/resolve/main/onnx/model_quantized\\.onnx: the hub states sha256 ${sha256(model.files.get('onnx/model_quantized.onnx')!)}, the download has [0-9a-f]{64}; the partial file was deleted$`),
    );
    expect(existsSync(join(place.models, 'tiny-embed'))).toBe(false);
    const staging = join(place.models, '.pull-tiny-embed');
    expect(existsSync(join(staging, 'onnx', 'model_quantized.onnx.part'))).toBe(false);
    expect(existsSync(join(staging, 'config.json'))).toBe(true); // verified files are kept for the next run
    // A small file is checked by its git blob id the same way.
    const small = await startModelHub(REPO, model.files);
    small.switches.corrupt.add('tokenizer.json');
    expect((await failure(pull(small, newHome()))).message).toMatch(/^tokenizer\.json: checksum mismatch .* the hub states git-sha1 [0-9a-f]{40}/);
    // Fixed at the source: the next run fetches only what is missing.
    hub.switches.corrupt.clear();
    const before = byteRequests(hub);
    const result = await pull(hub, place);
    expect(result.status).toBe('pulled');
    expect(byteRequests(hub) - before).toBe(2); // the ONNX file's resolve and its CDN request
    expect(result.resumed_bytes).toBe(result.bytes - model.files.get('onnx/model_quantized.onnx')!.length);
  });

  test('an interrupted pull resumes: finished files are kept, the cut file continues with a Range request', async () => {
    const hub = await startModelHub(REPO, model.files);
    const onnx = model.files.get('onnx/model_quantized.onnx')!;
    hub.switches.dropAfter.set('onnx/model_quantized.onnx', 200);
    const place = newHome();
    const error = await failure(pull(hub, place));
    expect(error.message).toMatch(/^onnx\/model_quantized\.onnx: the download from .* stopped after 200 of \d+ bytes/);
    expect(existsSync(join(place.models, 'tiny-embed'))).toBe(false);
    expect(statSync(join(place.models, '.pull-tiny-embed', 'onnx', 'model_quantized.onnx.part')).size).toBe(200);
    const result = await pull(hub, place);
    expect(result.status).toBe('pulled');
    expect(result.fetched_bytes).toBe(onnx.length - 200);
    expect(hub.fileRequests('onnx/model_quantized.onnx').at(-1)!.headers.range).toBe('bytes=200-');
    expect(readFileSync(join(place.models, 'tiny-embed', 'onnx', 'model_quantized.onnx')).equals(onnx)).toBe(true);
  });

  test('resumed against a server that ignores Range: the file is fetched whole and still verifies', async () => {
    const hub = await startModelHub(REPO, model.files);
    const onnx = model.files.get('onnx/model_quantized.onnx')!;
    hub.switches.dropAfter.set('onnx/model_quantized.onnx', 200);
    const place = newHome();
    await failure(pull(hub, place));
    hub.switches.ignoreRange = true;
    const result = await pull(hub, place);
    expect(result.status).toBe('pulled');
    expect(hub.fileRequests('onnx/model_quantized.onnx').at(-1)!.headers.range).toBe('bytes=200-');
    expect(result.fetched_bytes).toBe(onnx.length);
    expect(readFileSync(join(place.models, 'tiny-embed', 'onnx', 'model_quantized.onnx')).equals(onnx)).toBe(true);
  });

  test('a staging folder of another plan (another revision) is started afresh', async () => {
    const hub = await startModelHub(REPO, model.files);
    hub.switches.revisions.add('v2');
    hub.switches.dropAfter.set('onnx/model_quantized.onnx', 200);
    const place = newHome();
    await failure(pull(hub, place));
    const result = await pull(hub, place, { revision: 'v2' });
    expect(result).toMatchObject({ status: 'pulled', revision: 'v2', resumed_bytes: 0 });
  });

  test('two pulls of one model do not interleave: the second is refused while the first holds the lock', async () => {
    const hub = await startModelHub(REPO, model.files);
    const place = newHome();
    mkdirSync(place.models, { recursive: true });
    writeFileSync(join(place.models, '.pull-tiny-embed.lock'), JSON.stringify({ pid: process.pid, repo: REPO }));
    const error = await failure(pull(hub, place));
    expect(error.code).toBe('busy');
    expect(error.message).toBe(`another moon models pull of tiny-embed is running (pid ${process.pid})`);
    expect(hub.requests).toEqual([]);
    // A lock whose process is gone is taken over.
    writeFileSync(join(place.models, '.pull-tiny-embed.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, repo: REPO }));
    expect((await pull(hub, place)).status).toBe('pulled');
    expect(readdirSync(place.models)).toEqual(['tiny-embed']);
  });

  test('remove deletes the model (and an unfinished pull) inside the home only; a symlinked model loses the link alone', async () => {
    const hub = await startModelHub(REPO, model.files);
    const place = newHome();
    await pull(hub, place);
    expect(removeModel(place.home, place.models, 'tiny-embed')).toEqual({ name: 'tiny-embed', dir: join(place.models, 'tiny-embed'), files: 6 });
    expect(readdirSync(place.models)).toEqual([]);
    expect(() => removeModel(place.home, place.models, 'tiny-embed')).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(() => removeModel(place.home, place.models, '../archives')).toThrow(/is not a model name/);
    hub.switches.dropAfter.set('onnx/model_quantized.onnx', 200);
    await failure(pull(hub, place));
    expect(removeModel(place.home, place.models, REPO).files).toBeGreaterThan(0);
    expect(readdirSync(place.models)).toEqual([]);
    const outside = join(scratch.path, 'outside-model');
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'config.json'), '{}');
    symlinkSync(outside, join(place.models, 'linked'));
    expect(listModels(place.models).map((listing) => [listing.name, listing.repo])).toEqual([['linked', null]]);
    removeModel(place.home, place.models, 'linked');
    expect(existsSync(join(outside, 'config.json'))).toBe(true);
    expect(readdirSync(place.models)).toEqual([]);
  });
});
