import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { failure } from '../helpers/moon-error.js';
import { type Hub, describeHub, downloadFile, fileUrl, listHubFiles, treeUrl } from '../../src/models/hub-client.js';
import { gitBlobSha1, sha256 } from '../../src/models/verify.js';
import { makeTempDir } from '../helpers/cli.js';
import { startLoopbackServer } from '../helpers/loopback-server.js';
import { startModelHub } from '../helpers/model-hub.js';
import { buildTinyModel } from '../helpers/tiny-model.js';

const REPO = 'acme/tiny-embed';
const scratch = makeTempDir('moon-hub-');
afterAll(() => scratch.cleanup());
const model = buildTinyModel();
const onnx = model.files.get('onnx/model.onnx')!;
let counter = 0;
const part = (): string => join(scratch.path, `file-${++counter}.part`);

function hubOf(endpoint: string, token?: string): Hub {
  return describeHub({ endpoint, tokenEnv: 'TEST_HUB_TOKEN' }, token ? { TEST_HUB_TOKEN: token } : {}, 'the offline way');
}

describe('the hub protocol', () => {
  test('URLs: the tree listing and resolve, each path part encoded', () => {
    const hub = hubOf('https://hub.example/');
    expect(treeUrl(hub, REPO, 'main')).toBe('https://hub.example/api/models/acme/tiny-embed/tree/main?recursive=true');
    expect(fileUrl(hub, REPO, 'refs/pr/1', 'onnx/model quantized.onnx')).toBe('https://hub.example/acme/tiny-embed/resolve/refs%2Fpr%2F1/onnx/model%20quantized.onnx');
  });

  test('the listing: files with size and oid, LFS files with their SHA-256, folders left out, pages followed', async () => {
    const hub = await startModelHub(REPO, model.files);
    hub.switches.pageSize = 2;
    const files = await listHubFiles(hubOf(hub.endpoint), REPO, 'main');
    expect(files.map((file) => file.path).sort()).toEqual([...model.files.keys()].sort());
    expect(files.find((file) => file.path === 'config.json')).toEqual({ path: 'config.json', size: model.files.get('config.json')!.length, oid: gitBlobSha1(model.files.get('config.json')!) });
    expect(files.find((file) => file.path === 'onnx/model.onnx')).toMatchObject({ size: onnx.length, lfs: { oid: sha256(onnx), size: onnx.length } });
    expect(hub.requests.filter((request) => request.url.includes('/tree/')).length).toBeGreaterThan(3);
  });

  test('an unknown repo or revision is not_found naming the URL', async () => {
    const hub = await startModelHub(REPO, model.files);
    const error = await failure(listHubFiles(hubOf(hub.endpoint), 'acme/nope', 'main'));
    expect(error.code).toBe('not_found');
    expect(error.message).toBe(`the file list of acme/nope@main: not on the hub (HTTP 404 from ${hub.endpoint}/api/models/acme/nope/tree/main?recursive=true)`);
  });

  test('a hub that cannot be reached: io, the URL and the cause, and the offline hint', async () => {
    const closed = await startLoopbackServer(() => undefined);
    const endpoint = closed.baseUrl;
    await closed.close();
    const error = await failure(listHubFiles(hubOf(endpoint), REPO, 'main'));
    expect(error.code).toBe('io');
    expect(error.message).toBe(`the file list of ${REPO}: cannot reach the model hub at ${endpoint}/api/models/acme/tiny-embed/tree/main?recursive=true (ECONNREFUSED)`);
    expect(error.hint).toBe('the offline way');
  });

  test('401 without a token says how to give one; a token goes only to the hub, never to the CDN it redirects to', async () => {
    const refusing = await startLoopbackServer((_request, _n, res) => res.writeHead(401).end());
    const refused = await failure(listHubFiles(hubOf(refusing.baseUrl), REPO, 'main'));
    expect(refused.code).toBe('bad_config');
    expect(refused.hint).toMatch(/needs a token: put it in HF_TOKEN/);
    const hub = await startModelHub(REPO, model.files);
    const target = part();
    await downloadFile(hubOf(hub.endpoint, 'tok-123'), { url: fileUrl(hubOf(hub.endpoint), REPO, 'main', 'onnx/model.onnx'), path: 'onnx/model.onnx', partPath: target, size: onnx.length });
    expect(readFileSync(target).equals(onnx)).toBe(true);
    const [resolve, cdn] = hub.fileRequests('onnx/model.onnx');
    expect(resolve).toMatchObject({ server: 'hub', headers: { authorization: 'Bearer tok-123' } });
    expect(cdn!.server).toBe('cdn');
    expect(cdn!.headers.authorization).toBeUndefined();
  });
});

describe('downloads resume', () => {
  test('a part file is resumed with Range: bytes=N- (206), through the redirect', async () => {
    const hub = await startModelHub(REPO, model.files);
    const target = part();
    writeFileSync(target, onnx.subarray(0, 100));
    const seen: number[] = [];
    const outcome = await downloadFile(hubOf(hub.endpoint), {
      url: fileUrl(hubOf(hub.endpoint), REPO, 'main', 'onnx/model.onnx'),
      path: 'onnx/model.onnx',
      partPath: target,
      size: onnx.length,
      onBytes: (bytes) => seen.push(bytes),
    });
    expect(outcome).toEqual({ resumedFrom: 100, fetched: onnx.length - 100 });
    expect(readFileSync(target).equals(onnx)).toBe(true);
    expect(hub.fileRequests('onnx/model.onnx').map((request) => request.headers.range)).toEqual(['bytes=100-', 'bytes=100-']);
    expect(seen.at(-1)).toBe(onnx.length);
  });

  test('a server that answers 200 to the range sends the whole file: the part file starts over', async () => {
    const hub = await startModelHub(REPO, model.files);
    hub.switches.ignoreRange = true;
    const target = part();
    writeFileSync(target, Buffer.from('x'.repeat(100))); // not even the right bytes: replaced whole
    const outcome = await downloadFile(hubOf(hub.endpoint), { url: fileUrl(hubOf(hub.endpoint), REPO, 'main', 'onnx/model.onnx'), path: 'onnx/model.onnx', partPath: target, size: onnx.length });
    expect(outcome).toEqual({ resumedFrom: 0, fetched: onnx.length });
    expect(readFileSync(target).equals(onnx)).toBe(true);
  });

  test('a cut connection: io naming the file, the URL and the bytes; the part file keeps them for the next run', async () => {
    const hub = await startModelHub(REPO, model.files);
    hub.switches.dropAfter.set('onnx/model.onnx', 150);
    const target = part();
    const url = fileUrl(hubOf(hub.endpoint), REPO, 'main', 'onnx/model.onnx');
    const error = await failure(downloadFile(hubOf(hub.endpoint), { url, path: 'onnx/model.onnx', partPath: target, size: onnx.length }));
    expect(error.code).toBe('io');
    expect(error.message).toMatch(new RegExp(`^onnx/model\\.onnx: the download from ${url.replace(/[.?]/g, '\\$&')} stopped after 150 of ${onnx.length} bytes`));
    expect(error.hint).toBe('run the same command again: it resumes where this one stopped');
    expect(readFileSync(target).length).toBe(150);
    const outcome = await downloadFile(hubOf(hub.endpoint), { url, path: 'onnx/model.onnx', partPath: target, size: onnx.length });
    expect(outcome.resumedFrom).toBe(150);
    expect(readFileSync(target).equals(onnx)).toBe(true);
  });

  test('a part file longer than the file is dropped; a complete one is not fetched again', async () => {
    const hub = await startModelHub(REPO, model.files);
    const url = fileUrl(hubOf(hub.endpoint), REPO, 'main', 'config.json');
    const config = model.files.get('config.json')!;
    const long = part();
    writeFileSync(long, Buffer.concat([config, Buffer.from('junk')]));
    expect(await downloadFile(hubOf(hub.endpoint), { url, path: 'config.json', partPath: long, size: config.length })).toEqual({ resumedFrom: 0, fetched: config.length });
    const before = hub.requests.length;
    expect(await downloadFile(hubOf(hub.endpoint), { url, path: 'config.json', partPath: long, size: config.length })).toEqual({ resumedFrom: config.length, fetched: 0 });
    expect(hub.requests.length).toBe(before);
  });
});
