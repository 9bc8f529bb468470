import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { type HubFile } from '../../src/models/hub-client.js';
import { chooseModelFiles, expectedChecksum, findOnnxDtype, parseDtype, readHiddenSize } from '../../src/models/model-files.js';
import { checkFile, gitBlobSha1, hashFile, sha256 } from '../../src/models/verify.js';
import { makeTempDir } from '../helpers/cli.js';

const scratch = makeTempDir('moon-verify-');
afterAll(() => scratch.cleanup());

describe('checksums', () => {
  test('the git blob id is SHA-1 of "blob <size>\\0" and the content, as git hash-object computes it', () => {
    expect(gitBlobSha1(Buffer.from('hello\n'))).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
    expect(gitBlobSha1(Buffer.alloc(0))).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
    let git = '';
    try {
      git = execFileSync('git', ['hash-object', '--stdin'], { input: '{"hidden_size": 8}\n' }).toString().trim();
    } catch {
      git = '';
    }
    if (git) expect(gitBlobSha1(Buffer.from('{"hidden_size": 8}\n'))).toBe(git);
  });

  test('SHA-256 of the content', () => {
    expect(sha256(Buffer.from('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  test('a file on disk hashes as its bytes do, streamed; checkFile says whether it matches', async () => {
    const content = Buffer.alloc(3 * 1024 * 1024 + 17, 7); // several read chunks
    const path = join(scratch.path, 'big.bin');
    writeFileSync(path, content);
    expect(await hashFile(path, 'sha256')).toBe(sha256(content));
    expect(await hashFile(path, 'git-sha1')).toBe(gitBlobSha1(content));
    expect(await checkFile(path, { algorithm: 'sha256', hex: sha256(content).toUpperCase() })).toEqual({ ok: true, found: sha256(content) });
    expect((await checkFile(path, { algorithm: 'git-sha1', hex: '0'.repeat(40) })).ok).toBe(false);
    await expect(hashFile(join(scratch.path, 'nope'), 'sha256')).rejects.toThrow(/cannot read .*nope/);
  });
});

describe('which files a model needs', () => {
  const file = (path: string, size = 10, lfs = false): HubFile => ({ path, size, oid: 'a'.repeat(40), ...(lfs ? { lfs: { oid: 'b'.repeat(64), size } } : {}) });
  const tree = [
    file('config.json'),
    file('tokenizer.json'),
    file('tokenizer_config.json'),
    file('special_tokens_map.json'),
    file('vocab.txt'),
    file('README.md'),
    file('onnx/model.onnx', 400, true),
    file('onnx/model_quantized.onnx', 100, true),
    file('onnx/model_fp16.onnx', 200, true),
  ];

  test('config, tokenizer files and the quantised ONNX file by default; fp32 when asked', () => {
    const q8 = chooseModelFiles(tree, 'o/r');
    expect(q8.dtype).toBe('q8');
    expect(q8.files.map((item) => item.path)).toEqual(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'onnx/model_quantized.onnx']);
    expect(q8.bytes).toBe(140);
    const fp32 = chooseModelFiles(tree, 'o/r', 'fp32');
    expect(fp32.files.at(-1)!.path).toBe('onnx/model.onnx');
    // No quantised file: fp32 without asking; special_tokens_map.json only when there is one.
    const plain = chooseModelFiles(tree.filter((item) => !['onnx/model_quantized.onnx', 'special_tokens_map.json'].includes(item.path)), 'o/r');
    expect(plain.dtype).toBe('fp32');
    expect(plain.files.map((item) => item.path)).toEqual(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx']);
  });

  test('a repo without a tokenizer or the asked ONNX file is named with what it has', () => {
    expect(() => chooseModelFiles(tree.filter((item) => item.path !== 'tokenizer.json'), 'o/r')).toThrow(/o\/r has no tokenizer\.json/);
    expect(() => chooseModelFiles(tree.filter((item) => item.path !== 'onnx/model.onnx'), 'o/r', 'fp32')).toThrow(
      'o/r has no onnx/model.onnx (its ONNX files: onnx/model_quantized.onnx, onnx/model_fp16.onnx)',
    );
    expect(() => chooseModelFiles(tree.filter((item) => !item.path.endsWith('.onnx')), 'o/r')).toThrow(/no ONNX file at all/);
  });

  test('the checksum checked: SHA-256 for LFS files, the git blob id for the rest', () => {
    expect(expectedChecksum(file('config.json'))).toEqual({ algorithm: 'git-sha1', hex: 'a'.repeat(40) });
    expect(expectedChecksum(file('onnx/model.onnx', 5, true))).toEqual({ algorithm: 'sha256', hex: 'b'.repeat(64) });
  });

  test('dtype names, ONNX file names, hidden sizes', () => {
    expect(parseDtype('fp32')).toBe('fp32');
    expect(() => parseDtype('int4')).toThrow('--dtype: "int4" is not one of q8, fp32');
    expect(findOnnxDtype(['model_quantized.onnx'])).toBe('q8');
    expect(findOnnxDtype(['model_quantized.onnx', 'model.onnx'])).toBe('fp32');
    expect(findOnnxDtype(['weights.bin'])).toBeUndefined();
    expect(readHiddenSize({ hidden_size: 384 })).toBe(384);
    expect(readHiddenSize({ d_model: 512 })).toBe(512);
    expect(readHiddenSize({ hidden_size: '384' })).toBeUndefined();
  });
});
