import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cosineSimilarity, createEmbedder, l2Normalize, prepareEmbeddingText, type EmbedConfigInput } from '../../src/embed/index.js';
import { createNoneEmbedder } from '../../src/embed/none.js';
import { TRANSFORMERS_MISSING, TransformersEmbedder, inspectModelDir } from '../../src/embed/transformers.js';
import { MoonError } from '../../src/errors.js';

const scratch = mkdtempSync(join(tmpdir(), 'moon-embed-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function configError(config: EmbedConfigInput): Promise<MoonError> {
  const error = await createEmbedder(config).then(
    () => {
      throw new Error('expected createEmbedder to fail');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MoonError);
  return error as MoonError;
}

/** A directory shaped like an exported Hugging Face ONNX model (the files are placeholders). */
function fakeModelDir(name: string, options: { onnx?: string | null; config?: Record<string, unknown> } = {}): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(options.config ?? { model_type: 'bert', hidden_size: 384 }));
  writeFileSync(join(dir, 'tokenizer.json'), '{}');
  if (options.onnx !== null) writeFileSync(join(dir, 'onnx', options.onnx ?? 'model.onnx'), '');
  return dir;
}

function isInstalled(pkg: string): boolean {
  try {
    createRequire(import.meta.url).resolve(pkg);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'ERR_PACKAGE_PATH_NOT_EXPORTED';
  }
}
const transformersInstalled = isInstalled('@huggingface/transformers');

describe('createEmbedder', () => {
  it('returns null for provider "none" (the default)', async () => {
    expect(await createEmbedder({ provider: 'none' })).toBeNull();
    expect(await createEmbedder({ provider: 'none', batch_size: 64, timeout_ms: 30_000 })).toBeNull();
    expect(createNoneEmbedder()).toBeNull();
  });

  it('names the missing key for openai-compatible', async () => {
    const noUrl = await configError({ provider: 'openai-compatible', model: 'nomic-embed-text' });
    expect(noUrl.code).toBe('bad_config');
    expect(noUrl.message).toBe('embed.base_url is required when embed.provider = "openai-compatible"');
    const noModel = await configError({ provider: 'openai-compatible', base_url: 'http://127.0.0.1:11434' });
    expect(noModel.message).toBe('embed.model is required when embed.provider = "openai-compatible"');
    const badUrl = await configError({ provider: 'openai-compatible', base_url: 'file:///etc', model: 'm' });
    expect(badUrl.message).toMatch(/^embed\.base_url must be an http\(s\) URL/);
  });

  it('rejects nonsense batch sizes and timeouts', async () => {
    expect((await configError({ provider: 'none', batch_size: 0 })).message).toMatch(/embed\.batch_size/);
    expect((await configError({ provider: 'none', timeout_ms: -1 })).message).toMatch(/embed\.timeout_ms/);
  });

  it('names embed.model_path for transformers: required, must exist, must be a directory, must hold an ONNX model', async () => {
    expect((await configError({ provider: 'transformers' })).message).toBe(
      'embed.model_path is required when embed.provider = "transformers"',
    );
    const missing = await configError({ provider: 'transformers', model_path: join(scratch, 'nope') });
    expect(missing.code).toBe('bad_config');
    expect(missing.message).toMatch(/^embed\.model_path: .*nope does not exist/);
    const file = join(scratch, 'a-file');
    writeFileSync(file, 'x');
    expect((await configError({ provider: 'transformers', model_path: file })).message).toMatch(/^embed\.model_path: .*a-file is not a directory/);
    const empty = fakeModelDir('no-onnx', { onnx: null });
    expect((await configError({ provider: 'transformers', model_path: empty })).message).toMatch(/^embed\.model_path: .*has no onnx\/model\.onnx/);
    const noSize = fakeModelDir('no-size', { config: { model_type: 'custom' } });
    expect((await configError({ provider: 'transformers', model_path: noSize })).message).toMatch(/^embed\.dims is required/);
  });

  it('reads the dtype and dimension of a model directory', () => {
    expect(inspectModelDir(fakeModelDir('fp32'))).toMatchObject({ dtype: 'fp32', hiddenSize: 384 });
    expect(inspectModelDir(fakeModelDir('q8', { onnx: 'model_quantized.onnx', config: { hidden_size: 768 } }))).toMatchObject({
      dtype: 'q8',
      hiddenSize: 768,
    });
  });

  it.skipIf(transformersInstalled)(
    'says how to install @huggingface/transformers when it is missing (skipped: it is installed here)',
    async () => {
      const dir = fakeModelDir('all-MiniLM-L6-v2');
      const error = await configError({ provider: 'transformers', model_path: dir });
      expect(error.code).toBe('bad_config');
      expect(error.message).toBe(TRANSFORMERS_MISSING);
      expect(error.message).toBe(
        'embed.provider = "transformers" needs the optional package @huggingface/transformers: npm install @huggingface/transformers',
      );
      // The lazy import() on first embed fails the same way.
      const embedder = new TransformersEmbedder(inspectModelDir(dir), 384, 'all-MiniLM-L6-v2', 64);
      expect(embedder.id).toBe('transformers:all-MiniLM-L6-v2:fp32:384');
      const lazy = await embedder.embed(['hello']).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(lazy).toBeInstanceOf(MoonError);
      expect((lazy as MoonError).message).toBe(TRANSFORMERS_MISSING);
    },
  );

  it('checks embed.model and embed.dims for the local provider before loading anything', async () => {
    const wrongModel = await configError({ provider: 'local', model: 'all-MiniLM-L6-v2' });
    expect(wrongModel.code).toBe('bad_config');
    expect(wrongModel.message).toMatch(/embed\.model = "all-MiniLM-L6-v2" is not a local model/);
    const wrongDims = await configError({ provider: 'local', dims: 384 });
    expect(wrongDims.message).toMatch(/embed\.dims = 384 .*512-dimensional/);
  });
});

describe('prepareEmbeddingText', () => {
  it('collapses whitespace and trims', () => {
    expect(prepareEmbeddingText('  hello\n\n\tworld  \r\n again ')).toBe('hello world again');
    expect(prepareEmbeddingText('')).toBe('');
    expect(prepareEmbeddingText(' \n\t ')).toBe('');
  });

  it('truncates to maxChars (default 2000) without splitting a surrogate pair', () => {
    expect(prepareEmbeddingText('x'.repeat(5000))).toHaveLength(2000);
    expect(prepareEmbeddingText('abc def ghi', 7)).toBe('abc def');
    expect(prepareEmbeddingText('abc def ghi', 4)).toBe('abc'); // no trailing space
    expect(prepareEmbeddingText('ab😀cd', 3)).toBe('ab'); // 😀 is two UTF-16 units
    expect(prepareEmbeddingText('ab😀cd', 4)).toBe('ab😀');
    expect(prepareEmbeddingText('hello', 0)).toBe('');
  });
});

describe('vector helpers', () => {
  it('normalises to unit length and measures cosine', () => {
    const v = l2Normalize(Float32Array.from([3, 4]));
    expect(Array.from(v)).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    expect(Array.from(l2Normalize(new Float32Array(3)))).toEqual([0, 0, 0]);
    expect(cosineSimilarity(Float32Array.from([1, 0]), Float32Array.from([2, 0]))).toBeCloseTo(1, 6);
    expect(cosineSimilarity(Float32Array.from([1, 0]), Float32Array.from([0, 5]))).toBeCloseTo(0, 6);
  });
});
