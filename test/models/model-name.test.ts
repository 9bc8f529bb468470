import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createEmbedder } from '../../src/embed/index.js';
import { MoonError } from '../../src/errors.js';
import { failure } from '../helpers/moon-error.js';
import { describeHub } from '../../src/models/hub-client.js';
import { DEFAULT_MODEL_NAME, locateNamedModel, modelDirOf, resolvePullTarget, toModelName } from '../../src/models/model-name.js';
import { describeRecallMeaning } from '../../src/models/recall-meaning.js';
import { makeTempDir } from '../helpers/cli.js';
import { buildTinyModel } from '../helpers/tiny-model.js';

const scratch = makeTempDir('moon-model-name-');
afterAll(() => scratch.cleanup());

function writeModel(dir: string, only?: (path: string) => boolean): void {
  for (const [path, data] of buildTinyModel().files) {
    if (only && !only(path)) continue;
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), data);
  }
}

describe('model names', () => {
  test('a model is kept under its repo name; a name holds no separator, dot-start or path trick', () => {
    expect(toModelName('Xenova/bge-small-en-v1.5', 'model')).toBe('bge-small-en-v1.5');
    expect(toModelName('tiny-embed', 'model')).toBe('tiny-embed');
    for (const bad of ['', '../x', '.hidden', 'a/b/c', 'a\\b', 'x/..', 'with space', 'a/']) {
      expect(() => toModelName(bad, 'model'), bad).toThrow(/is not a model name/);
    }
    expect(modelDirOf('/h/models', 'tiny')).toBe(join('/h/models', 'tiny'));
  });

  test('what pull fetches: the default, a known name, or any owner/name repo', () => {
    expect(resolvePullTarget(undefined)).toEqual({ name: DEFAULT_MODEL_NAME, repo: 'Xenova/bge-small-en-v1.5' });
    expect(resolvePullTarget('gte-small')).toEqual({ name: 'gte-small', repo: 'Xenova/gte-small' });
    expect(resolvePullTarget('acme/tiny-embed')).toEqual({ name: 'tiny-embed', repo: 'acme/tiny-embed' });
    const unknown = (() => {
      try {
        resolvePullTarget('tiny-embed');
      } catch (error) {
        return error as MoonError;
      }
      return null;
    })();
    expect(unknown?.message).toMatch(/"tiny-embed" is not one moon knows by name/);
    expect(unknown?.hint).toBe('give its hub repo instead: moon models pull OWNER/tiny-embed');
  });

  test('embed.model → $MOON_HOME/models/<name>, present or not; a bad name is a configuration error', () => {
    const models = join(scratch.path, 'names', 'models');
    expect(locateNamedModel(models, undefined)).toEqual({ spec: undefined, name: DEFAULT_MODEL_NAME, dir: join(models, DEFAULT_MODEL_NAME), present: false });
    mkdirSync(join(models, 'tiny-embed'), { recursive: true });
    expect(locateNamedModel(models, 'acme/tiny-embed')).toMatchObject({ name: 'tiny-embed', dir: join(models, 'tiny-embed'), present: true });
    expect(() => locateNamedModel(models, '../etc')).toThrow(expect.objectContaining({ code: 'bad_config', message: expect.stringMatching(/^embed\.model: "\.\.\/etc" is not a model name/) }));
  });
});

describe('embed.provider = "transformers" by name', () => {
  const models = join(scratch.path, 'home', 'models');

  test('the default model, not pulled: model_missing, naming the key and the pull command', async () => {
    const error = await failure(createEmbedder({ provider: 'transformers' }, { modelsDir: models }));
    expect(error.code).toBe('model_missing');
    expect(error.message).toBe(`embed.model is not set, so embed.provider = "transformers" uses the default model "${DEFAULT_MODEL_NAME}", which is not in ${join(models, DEFAULT_MODEL_NAME)}`);
    expect(error.hint).toBe(`run: moon models pull ${DEFAULT_MODEL_NAME}`);
    expect(error.exitCode).toBe(1);
  });

  test('a named model, not pulled: the key, the folder, and how to pull it', async () => {
    const bare = await failure(createEmbedder({ provider: 'transformers', model: 'tiny-embed' }, { modelsDir: models }));
    expect(bare.message).toBe(`embed.model = "tiny-embed": the model is not in ${join(models, 'tiny-embed')}`);
    expect(bare.hint).toBe('run: moon models pull OWNER/tiny-embed (the hub repo it comes from)');
    const repo = await failure(createEmbedder({ provider: 'transformers', model: 'acme/tiny-embed' }, { modelsDir: models }));
    expect(repo.hint).toBe('run: moon models pull acme/tiny-embed');
  });

  test('a pulled model is found by name and runs from its folder; model_path still wins when set', async () => {
    writeModel(join(models, 'tiny-embed'), (path) => path !== 'onnx/model.onnx');
    const embedder = await createEmbedder({ provider: 'transformers', model: 'acme/tiny-embed' }, { modelsDir: models });
    expect(embedder!.id).toBe('transformers:tiny-embed:q8:5');
    const [vector] = await embedder!.embed(['postgres schema migration']);
    expect(vector).toHaveLength(5);
    await embedder!.close?.();
    const elsewhere = join(scratch.path, 'elsewhere', 'my-model');
    writeModel(elsewhere);
    const byPath = await createEmbedder({ provider: 'transformers', model: 'tiny-embed', model_path: elsewhere }, { modelsDir: models });
    expect(byPath!.id).toBe('transformers:tiny-embed:fp32:5');
    // Without a home to look in (a library caller), model_path is required, as before.
    expect((await failure(createEmbedder({ provider: 'transformers' }))).message).toBe('embed.model_path is required when embed.provider = "transformers"');
  });

  test('a folder that is there but is no model is named by the key it came from', async () => {
    mkdirSync(join(models, 'empty'), { recursive: true });
    const error = await failure(createEmbedder({ provider: 'transformers', model: 'empty' }, { modelsDir: models }));
    expect(error.code).toBe('bad_config');
    expect(error.message).toBe(`embed.model = "empty": ${join(models, 'empty')} has no config.json`);
  });

  test('what recall uses, from the configuration and the folder alone', () => {
    expect(describeRecallMeaning({ provider: 'none', batch_size: 64, timeout_ms: 1 }, models)).toMatchObject({ provider: 'none', model: null });
    expect(describeRecallMeaning({ provider: 'transformers', model: 'tiny-embed', batch_size: 64, timeout_ms: 1 }, models)).toMatchObject({ model: 'tiny-embed', present: true, pull: null });
    expect(describeRecallMeaning({ provider: 'transformers', batch_size: 64, timeout_ms: 1 }, models)).toMatchObject({ model: DEFAULT_MODEL_NAME, present: false, pull: `moon models pull ${DEFAULT_MODEL_NAME}` });
  });
});

describe('configuration', () => {
  test('transformers needs no model_path any more; models.endpoint from MOON_MODELS_ENDPOINT; the token by the variable models.token_env names', () => {
    const home = join(scratch.path, 'config-home');
    const config = loadConfig({ env: { MOON_HOME: home, MOON_EMBED_PROVIDER: 'transformers', MOON_MODELS_ENDPOINT: 'http://127.0.0.1:9/' } });
    expect(config.embed).toMatchObject({ provider: 'transformers' });
    expect(config.models).toEqual({ endpoint: 'http://127.0.0.1:9/', token_env: 'HF_TOKEN' });
    expect(describeHub({ endpoint: config.models.endpoint, tokenEnv: config.models.token_env }, { HF_TOKEN: ' secret ' })).toMatchObject({ endpoint: 'http://127.0.0.1:9', token: 'secret' });
    expect(describeHub({ tokenEnv: 'HF_TOKEN' }, {}).endpoint).toBe('https://huggingface.co');
    expect(describeHub({ tokenEnv: 'HF_TOKEN' }, { HF_ENDPOINT: 'https://mirror.example/' }).endpoint).toBe('https://mirror.example');
    expect(describeHub({ endpoint: 'https://a.example', tokenEnv: 'MY_TOKEN' }, { HF_ENDPOINT: 'https://b.example', MY_TOKEN: 't' })).toMatchObject({ endpoint: 'https://a.example', token: 't' });
    expect(() => loadConfig({ env: { MOON_HOME: home, MOON_MODELS_ENDPOINT: 'not a url' } })).toThrow(/MOON_MODELS_ENDPOINT: models\.endpoint/);
  });
});
