import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/**
 * A real HTTP server on 127.0.0.1 (a random port) for tests that talk to a vendor's API: every request is
 * recorded (method, path with query, headers, raw and parsed body, arrival time), then answered by `reply`.
 * Servers started in a test are closed after it, open connections included (a reply may never come).
 */
export interface RecordedRequest {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  raw: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: Record<string, unknown> | undefined;
  at: number;
}

export type Reply = (request: RecordedRequest, n: number, res: ServerResponse) => void;

export interface LoopbackServer {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const open: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

export async function startLoopbackServer(reply: Reply): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        body = undefined;
      }
      const request: RecordedRequest = { method: req.method, url: req.url, headers: req.headers, raw, body, at: Date.now() };
      requests.push(request);
      reply(request, requests.length, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const loopback: LoopbackServer = {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  open.push(loopback);
  return loopback;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function sendText(res: ServerResponse, status: number, text: string, contentType = 'text/plain'): void {
  res.writeHead(status, { 'content-type': contentType });
  res.end(text);
}
