import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/**
 * A model hub on 127.0.0.1 that speaks the protocol `moon models pull` uses (Hugging Face's): the tree listing
 * (`/api/models/{repo}/tree/{revision}?recursive=true`, paged with a `Link` header when `pageSize` is set) and
 * `/{repo}/resolve/{revision}/{path}`. Large files (`.onnx`) are LFS files: listed with their SHA-256, and resolved
 * by a 302 to a second server (another origin, like a CDN) that serves them. Every file honours `Range: bytes=N-`
 * (206) unless `ignoreRange` is set (then 200 and the whole file). `corrupt` changes a file's bytes on the way;
 * `dropAfter` cuts the connection after that many bytes of a file, once. Servers close after each test.
 */
export interface HubRequest {
  server: 'hub' | 'cdn';
  url: string;
  headers: IncomingHttpHeaders;
}

export interface HubSwitches {
  ignoreRange: boolean;
  corrupt: Set<string>;
  /** path → bytes sent before the connection is cut (the entry is removed when used). */
  dropAfter: Map<string, number>;
  /** Files per tree page (0: one page). */
  pageSize: number;
  /** Only these revisions exist (404 for others). */
  revisions: Set<string>;
}

export interface ModelHub {
  endpoint: string;
  cdn: string;
  requests: HubRequest[];
  switches: HubSwitches;
  /** Requests for one file's bytes (resolve and CDN), in order. */
  fileRequests(path: string): HubRequest[];
  close(): Promise<void>;
}

const open: ModelHub[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((hub) => hub.close()));
});

const isLfs = (path: string): boolean => path.endsWith('.onnx');
const gitSha1 = (content: Buffer): string => createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
const sha256 = (content: Buffer): string => createHash('sha256').update(content).digest('hex');

export async function startModelHub(repo: string, files: Map<string, Buffer>): Promise<ModelHub> {
  const requests: HubRequest[] = [];
  const switches: HubSwitches = { ignoreRange: false, corrupt: new Set(), dropAfter: new Map(), pageSize: 0, revisions: new Set(['main']) };
  const byHash = new Map([...files].filter(([path]) => isLfs(path)).map(([path, content]) => [sha256(content), path]));

  const listing = (): unknown[] => {
    const folders = [...new Set([...files.keys()].filter((path) => path.includes('/')).map((path) => path.slice(0, path.lastIndexOf('/'))))];
    return [
      ...folders.map((path) => ({ type: 'directory', oid: gitSha1(Buffer.from(path)), size: 0, path })),
      ...[...files].map(([path, content]) => {
        if (!isLfs(path)) return { type: 'file', oid: gitSha1(content), size: content.length, path };
        // An LFS file's oid is the blob id of its pointer, not of its content: only lfs.oid checks the bytes.
        const pointer = Buffer.from(`version https://git-lfs.github.com/spec/v1\noid sha256:${sha256(content)}\nsize ${content.length}\n`);
        return { type: 'file', oid: gitSha1(pointer), size: content.length, path, lfs: { oid: sha256(content), size: content.length, pointerSize: pointer.length } };
      }),
    ];
  };

  const serveFile = (path: string, headers: IncomingHttpHeaders, res: ServerResponse): void => {
    let content = files.get(path)!;
    if (switches.corrupt.has(path)) {
      content = Buffer.from(content);
      const middle = Math.floor(content.length / 2);
      content[middle] = content[middle]! ^ 0xff;
    }
    const range = /^bytes=(\d+)-$/.exec(String(headers.range ?? ''));
    let start = 0;
    if (range && !switches.ignoreRange) {
      start = Number(range[1]);
      if (start >= content.length) {
        res.writeHead(416, { 'content-range': `bytes */${content.length}` });
        res.end();
        return;
      }
      res.writeHead(206, { 'content-length': content.length - start, 'content-range': `bytes ${start}-${content.length - 1}/${content.length}`, 'accept-ranges': 'bytes' });
    } else {
      res.writeHead(200, { 'content-length': content.length, 'accept-ranges': 'bytes' });
    }
    const body = content.subarray(start);
    const drop = switches.dropAfter.get(path);
    if (drop !== undefined && drop - start > 0 && drop - start < body.length) {
      switches.dropAfter.delete(path);
      res.write(body.subarray(0, drop - start), () => setTimeout(() => res.destroy(), 20));
      return;
    }
    res.end(body);
  };

  const cdn = await listen((req, res) => {
    requests.push({ server: 'cdn', url: req.url ?? '', headers: req.headers });
    const path = byHash.get(/^\/lfs\/([0-9a-f]{64})$/.exec(req.url ?? '')?.[1] ?? '');
    if (!path) {
      res.writeHead(404).end();
      return;
    }
    serveFile(path, req.headers, res);
  });
  const hub = await listen((req, res) => {
    requests.push({ server: 'hub', url: req.url ?? '', headers: req.headers });
    const url = new URL(req.url ?? '/', 'http://hub');
    const tree = /^\/api\/models\/(.+)\/tree\/([^/]+)$/.exec(url.pathname);
    if (tree) {
      if (decodeURIComponent(tree[1]!) !== repo || !switches.revisions.has(decodeURIComponent(tree[2]!))) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Repository not found"}');
        return;
      }
      const all = listing();
      const size = switches.pageSize > 0 ? switches.pageSize : all.length;
      const from = Number(url.searchParams.get('cursor') ?? '0');
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (from + size < all.length) headers.link = `<${url.pathname}?recursive=true&cursor=${from + size}>; rel="next"`;
      res.writeHead(200, headers).end(JSON.stringify(all.slice(from, from + size)));
      return;
    }
    const resolve = /^\/(.+?\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    const path = resolve ? decodeURIComponent(resolve[3]!) : '';
    if (!resolve || decodeURIComponent(resolve[1]!) !== repo || !switches.revisions.has(decodeURIComponent(resolve[2]!)) || !files.has(path)) {
      res.writeHead(404).end('Entry not found');
      return;
    }
    if (isLfs(path)) {
      res.writeHead(302, { location: `${cdn.url}/lfs/${sha256(files.get(path)!)}` }).end();
      return;
    }
    serveFile(path, req.headers, res);
  });
  const model: ModelHub = {
    endpoint: hub.url,
    cdn: cdn.url,
    requests,
    switches,
    fileRequests: (path) =>
      requests.filter((request) =>
        request.server === 'cdn'
          ? byHash.get(request.url.slice('/lfs/'.length)) === path
          : decodeURIComponent(/\/resolve\/[^/]+\/(.+)$/.exec(request.url)?.[1] ?? '') === path,
      ),
    close: async () => {
      await Promise.all([hub.close(), cdn.close()]);
    },
  };
  open.push(model);
  return model;
}

async function listen(handler: (req: import('node:http').IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
