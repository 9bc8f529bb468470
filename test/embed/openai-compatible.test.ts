import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbedder } from '../../src/embed/index.js';
import { OpenAICompatibleEmbedder, parseRetryAfter, resolveEndpoint } from '../../src/embed/openai-compatible.js';
import { MoonError } from '../../src/errors.js';

/** A real /v1/embeddings server on 127.0.0.1 (random port). Each request is recorded, then answered by `reply`. */
interface Request {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: { model?: unknown; input?: unknown };
}
type Reply = (request: Request, n: number, res: ServerResponse) => void;

interface FakeServer {
  baseUrl: string;
  port: number;
  requests: Request[];
  close(): Promise<void>;
}

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function startServer(reply: Reply = answerEmbeddings()): Promise<FakeServer> {
  const requests: Request[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Request['body'] = {};
      try {
        body = JSON.parse(raw) as Request['body'];
      } catch {
        // recorded as {}
      }
      const request = { method: req.method, url: req.url, headers: req.headers, body };
      requests.push(request);
      reply(request, requests.length, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const fake: FakeServer = {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(fake);
  return fake;
}

/** A deterministic, un-normalised vector for a text: what the fake model "means" by it. */
function fakeVector(text: string, dims: number): number[] {
  const vector = new Array<number>(dims).fill(0);
  for (let i = 0; i < text.length; i++) vector[(text.charCodeAt(i) + i) % dims]! += 1 + (i % 3);
  vector[0]! += 0.5; // never all zero
  return vector;
}

function unit(vector: number[]): number[] {
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

/** Answers like OpenAI: data[] with index, here in reverse order unless told otherwise. */
function answerEmbeddings(options: { dims?: number; order?: 'reverse' | 'forward' | 'shuffle'; drop?: number } = {}): Reply {
  const dims = options.dims ?? 8;
  return (request, _n, res) => {
    const input = request.body.input as string[];
    let data = input.map((text, index) => ({ object: 'embedding', index, embedding: fakeVector(text, dims) }));
    if (options.order !== 'forward') data.reverse();
    if (options.order === 'shuffle') data = [...data.filter((_, i) => i % 2 === 0), ...data.filter((_, i) => i % 2 === 1)];
    if (options.drop) data = data.slice(options.drop);
    json(res, 200, { object: 'list', data, model: request.body.model, usage: { prompt_tokens: 1, total_tokens: 1 } });
  };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function expectMoonError(promise: Promise<unknown>, code: MoonError['code'], pattern: RegExp): Promise<MoonError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a MoonError, got success');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MoonError);
  const moon = error as MoonError;
  expect(moon.message).toMatch(pattern);
  expect(moon.code).toBe(code);
  return moon;
}

const texts = (n: number): string[] => Array.from({ length: n }, (_, i) => `text number ${i}: ${'abcdefghij'.slice(0, (i % 10) + 1)}`);

describe('openai-compatible embedder against a loopback /v1/embeddings server', () => {
  it('batches by batch_size, posts {model, input} to /v1/embeddings, and returns unit vectors in input order', async () => {
    const server = await startServer(answerEmbeddings({ dims: 8 }));
    const embedder = await createEmbedder({ provider: 'openai-compatible', base_url: server.baseUrl, model: 'fake-embed', dims: 8, batch_size: 4 });
    const input = texts(10);
    const vectors = await embedder!.embed(input);
    expect(server.requests.map((r) => (r.body.input as string[]).length)).toEqual([4, 4, 2]);
    expect(server.requests.every((r) => r.method === 'POST' && r.url === '/v1/embeddings' && r.body.model === 'fake-embed')).toBe(true);
    expect(server.requests.flatMap((r) => r.body.input as string[])).toEqual(input);
    expect(vectors).toHaveLength(10);
    vectors.forEach((vector, i) => {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector.length).toBe(8);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
      const expected = unit(fakeVector(input[i]!, 8));
      expected.forEach((value, k) => expect(vector[k]).toBeCloseTo(value, 5));
    });
    expect(await embedder!.embed([])).toEqual([]);
    expect(server.requests).toHaveLength(3);
  });

  it('sends Authorization: Bearer <key> only when a key is set', async () => {
    const server = await startServer();
    const withKey = await createEmbedder({ provider: 'openai-compatible', base_url: `${server.baseUrl}/v1`, model: 'm', api_key: 'sk-test-123', dims: 8 });
    await withKey!.embed(['hello']);
    const without = await createEmbedder({ provider: 'openai-compatible', base_url: server.baseUrl, model: 'm', dims: 8 });
    await without!.embed(['hello']);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test-123');
    expect(server.requests[0]!.headers['content-type']).toBe('application/json');
    expect(server.requests[1]!.headers.authorization).toBeUndefined();
  });

  it('orders the answer by data[].index, whatever order the server sends', async () => {
    for (const order of ['reverse', 'shuffle', 'forward'] as const) {
      const server = await startServer(answerEmbeddings({ dims: 16, order }));
      const embedder = new OpenAICompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', dims: 16 });
      const input = texts(7);
      const vectors = await embedder.embed(input);
      vectors.forEach((vector, i) => {
        const expected = unit(fakeVector(input[i]!, 16));
        expect(Array.from(vector).map((v) => Number(v.toFixed(5)))).toEqual(expected.map((v) => Number(v.toFixed(5))));
      });
    }
  });

  it('retries a 429 after the Retry-After wait, then succeeds', async () => {
    const embeddings = answerEmbeddings();
    const server = await startServer((request, n, res) => {
      if (n === 1) return json(res, 429, { error: { message: 'rate limited' } }, { 'retry-after': '1' });
      embeddings(request, n, res);
    });
    const embedder = new OpenAICompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', dims: 8, retryBaseMs: 1 });
    const started = Date.now();
    const vectors = await embedder.embed(['a', 'b']);
    const elapsed = Date.now() - started;
    expect(vectors).toHaveLength(2);
    expect(server.requests).toHaveLength(2);
    expect(elapsed).toBeGreaterThanOrEqual(900); // Retry-After: 1 second, not the 1 ms backoff
  });

  it('retries 5xx with backoff and gives up after 3 tries, quoting a non-JSON error body', async () => {
    const server = await startServer((_request, _n, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
    });
    const embedder = new OpenAICompatibleEmbedder({ baseUrl: server.baseUrl, model: 'nomic-embed-text', dims: 8, retryBaseMs: 5 });
    const error = await expectMoonError(embedder.embed(['x']), 'io', /HTTP 502 after 3 tries for model "nomic-embed-text"/);
    expect(error.message).toContain('502 Bad Gateway');
    expect(server.requests).toHaveLength(3);
  });

  it('retries a 503 then succeeds', async () => {
    const embeddings = answerEmbeddings();
    const server = await startServer((request, n, res) => (n < 3 ? json(res, 503, { error: 'loading model' }) : embeddings(request, n, res)));
    const embedder = new OpenAICompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', dims: 8, retryBaseMs: 5 });
    expect(await embedder.embed(['x'])).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry other 4xx, and passes on the server message', async () => {
    const server = await startServer((_request, _n, res) => json(res, 400, { error: { message: 'input is too long for this model' } }));
    const embedder = new OpenAICompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', dims: 8, retryBaseMs: 1 });
    await expectMoonError(embedder.embed(['x']), 'io', /HTTP 400 for model "m": input is too long for this model/);
    expect(server.requests).toHaveLength(1);
  });

  it('reports 401 as a config problem pointing at embed.api_key', async () => {
    const server = await startServer((_request, _n, res) => json(res, 401, { error: { message: 'Incorrect API key provided' } }));
    const embedder = new OpenAICompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', dims: 8, apiKey: 'wrong' });
    const error = await expectMoonError(embedder.embed(['x']), 'bad_config', /HTTP 401 .*Incorrect API key/);
    expect(error.hint).toContain('embed.api_key');
  });

  it('retries network errors, then fails naming the endpoint and the cause', async () => {
    const server = await startServer();
    const { baseUrl } = server;
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const embedder = new OpenAICompatibleEmbedder({ baseUrl, model: 'm', dims: 8, retryBaseMs: 1 });
    await expectMoonError(embedder.embed(['x']), 'io', new RegExp(`${baseUrl}/v1/embeddings .*failed after 3 tries.*ECONNREFUSED`));
  });

  it('times out a request that does not answer within timeout_ms (and does not retry it)', async () => {
    const server = await startServer(() => {
      // never answers; the connection is closed by afterEach
    });
    const embedder = await createEmbedder({ provider: 'openai-compatible', base_url: server.baseUrl, model: 'slow', dims: 8, timeout_ms: 200 });
    const started = Date.now();
    const error = await expectMoonError(embedder!.embed(['x']), 'io', /\(model "slow"\) timed out after 200 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error.hint).toContain('embed.timeout_ms');
    expect(server.requests).toHaveLength(1);
  });

  it('rejects vectors of the wrong dimension, naming the model and the dims it got', async () => {
    const server = await startServer(answerEmbeddings({ dims: 4 }));
    const embedder = await createEmbedder({ provider: 'openai-compatible', base_url: server.baseUrl, model: 'all-minilm', dims: 384 });
    const error = await expectMoonError(embedder!.embed(['x']), 'bad_config', /"all-minilm" returned 4-dimensional vectors, expected 384 \(embed\.dims\)/);
    expect(error.hint).toContain('embed.dims = 4');
  });

  it('rejects a 200 whose body is not JSON', async () => {
    const server = await startServer((_request, _n, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('OK then, here are your embeddings: none');
    });
    const embedder = new OpenAICompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', dims: 8 });
    await expectMoonError(embedder.embed(['x']), 'io', /HTTP 200 .*not JSON: "OK then, here are your embeddings: none"/);
  });

  it('rejects an answer with the wrong number of embeddings or without data[]', async () => {
    const short = await startServer(answerEmbeddings({ drop: 1 }));
    await expectMoonError(new OpenAICompatibleEmbedder({ baseUrl: short.baseUrl, model: 'm', dims: 8 }).embed(['a', 'b', 'c']), 'io', /2 embeddings for 3 inputs/);
    const shapeless = await startServer((_request, _n, res) => json(res, 200, { embeddings: [[1, 2]] }));
    await expectMoonError(new OpenAICompatibleEmbedder({ baseUrl: shapeless.baseUrl, model: 'm', dims: 2 }).embed(['a']), 'io', /no "data" array/);
  });

  it('accepts base64-encoded embeddings', async () => {
    const server = await startServer((request, _n, res) => {
      const data = (request.body.input as string[]).map((text, index) => {
        const buffer = Buffer.alloc(8 * 4);
        fakeVector(text, 8).forEach((value, i) => buffer.writeFloatLE(value, i * 4));
        return { index, embedding: buffer.toString('base64') };
      });
      json(res, 200, { data });
    });
    const [vector] = await new OpenAICompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', dims: 8 }).embed(['hello']);
    unit(fakeVector('hello', 8)).forEach((value, i) => expect(vector![i]).toBeCloseTo(value, 5));
  });

  it('learns the dimension with one probe when embed.dims is not set', async () => {
    const server = await startServer(answerEmbeddings({ dims: 12 }));
    const embedder = await createEmbedder({ provider: 'openai-compatible', base_url: server.baseUrl, model: 'probe-me' });
    expect(embedder!.dims).toBe(12);
    expect(embedder!.id).toBe(`openai-compatible:127.0.0.1:${server.port}/v1:probe-me:12`);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body.input).toHaveLength(1);
  });
});

describe('openai-compatible fingerprint and endpoint', () => {
  it('is the same with or without /v1 and trailing slashes, and changes with host, path, model and dims', () => {
    const id = (baseUrl: string, model = 'nomic-embed-text', dims = 768) => new OpenAICompatibleEmbedder({ baseUrl, model, dims }).id;
    const base = id('http://localhost:11434');
    expect(base).toBe('openai-compatible:localhost:11434/v1:nomic-embed-text:768');
    expect(id('http://localhost:11434/')).toBe(base);
    expect(id('http://localhost:11434/v1')).toBe(base);
    expect(id('http://localhost:11434/v1/')).toBe(base);
    expect(id('http://localhost:11434/v1/embeddings')).toBe(base);
    expect(id('http://localhost:11434')).toBe(id('http://localhost:11434')); // stable
    expect(id('https://localhost:11434')).toBe(base); // the scheme does not change the vectors
    expect(id('http://localhost:1234')).not.toBe(base);
    expect(id('http://other-host:11434')).not.toBe(base);
    expect(id('http://localhost:11434/proxy')).toBe('openai-compatible:localhost:11434/proxy/v1:nomic-embed-text:768');
    expect(id('http://localhost:11434', 'mxbai-embed-large')).not.toBe(base);
    expect(id('http://localhost:11434', 'nomic-embed-text', 256)).not.toBe(base);
  });

  it('resolves the endpoint URL, keeping query parameters but never putting credentials in labels', () => {
    expect(resolveEndpoint('http://127.0.0.1:8080').url.href).toBe('http://127.0.0.1:8080/v1/embeddings');
    expect(resolveEndpoint('https://api.openai.com/v1').url.href).toBe('https://api.openai.com/v1/embeddings');
    expect(resolveEndpoint('https://example.com/openai/embeddings?api-version=1').url.href).toBe('https://example.com/openai/embeddings?api-version=1');
    const withUser = resolveEndpoint('http://user:secret@example.com/v1');
    expect(withUser.label).toBe('http://example.com/v1/embeddings');
    expect(withUser.fingerprint).toBe('example.com/v1');
    expect(() => resolveEndpoint('not a url')).toThrow(/embed\.base_url is not a URL/);
    expect(() => resolveEndpoint('ftp://example.com')).toThrow(/embed\.base_url must be an http\(s\) URL/);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter('soon')).toBeNull();
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:03 GMT', now)).toBe(3000);
  });
});
