import { type FileHandle, open, rm, stat } from 'node:fs/promises';
import { MoonError, describeError, errnoOf, toIoError } from '../errors.js';

/**
 * The model hub, spoken the Hugging Face way: `GET {endpoint}/api/models/{repo}/tree/{revision}?recursive=true`
 * lists a repo's files (paged by a `Link: <…>; rel="next"` header), `GET {endpoint}/{repo}/resolve/{revision}/{path}`
 * fetches one — often through a redirect to a CDN. Redirects are followed by hand so that the token goes to the
 * hub's own origin and nowhere else.
 */
export const DEFAULT_HUB_ENDPOINT = 'https://huggingface.co';
/** A request that sends no byte for this long is given up (the run can be resumed). */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
const MAX_REDIRECTS = 8;
const MAX_TREE_PAGES = 50;

export interface Hub {
  /** Base URL, without a trailing slash. */
  endpoint: string;
  /** Sent as a bearer token to the endpoint's origin only. */
  token: string | undefined;
  idleTimeoutMs: number;
  /** What to do when the hub cannot be reached (it names the model and the offline way). */
  unreachableHint: string;
}

/** A file of a repo, as its listing states it. */
export interface HubFile {
  path: string;
  size: number;
  /** The git blob id (SHA-1). */
  oid: string;
  /** Large files: the SHA-256 of the content and its size. */
  lfs?: { oid: string; size: number };
}

export interface HubSettings {
  /** models.endpoint (MOON_MODELS_ENDPOINT). */
  endpoint?: string | undefined;
  /** models.token_env: the name of the variable holding the token. */
  tokenEnv: string;
}

/** The hub in use: models.endpoint, else $HF_ENDPOINT, else huggingface.co; the token from the variable named. */
export function describeHub(settings: HubSettings, env: Readonly<Record<string, string | undefined>>, unreachableHint = ''): Hub {
  const endpoint = (settings.endpoint ?? (env.HF_ENDPOINT?.trim() || DEFAULT_HUB_ENDPOINT)).replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new MoonError('bad_config', `HF_ENDPOINT: "${endpoint}" is not a URL`, { hint: 'set models.endpoint (MOON_MODELS_ENDPOINT) instead, e.g. "https://huggingface.co"' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new MoonError('bad_config', `models.endpoint: "${endpoint}" is not an http(s) URL`);
  const token = env[settings.tokenEnv]?.trim();
  return { endpoint, token: token ? token : undefined, idleTimeoutMs: DEFAULT_IDLE_TIMEOUT_MS, unreachableHint };
}

const encodePath = (path: string): string => path.split('/').map(encodeURIComponent).join('/');

export function treeUrl(hub: Hub, repo: string, revision: string): string {
  return `${hub.endpoint}/api/models/${encodePath(repo)}/tree/${encodeURIComponent(revision)}?recursive=true`;
}

export function fileUrl(hub: Hub, repo: string, revision: string, path: string): string {
  return `${hub.endpoint}/${encodePath(repo)}/resolve/${encodeURIComponent(revision)}/${encodePath(path)}`;
}

/** Every file of the repo at the revision (folders left out). */
export async function listHubFiles(hub: Hub, repo: string, revision: string): Promise<HubFile[]> {
  const files: HubFile[] = [];
  let url: string | null = treeUrl(hub, repo, revision);
  for (let page = 0; url !== null && page < MAX_TREE_PAGES; page++) {
    const listing = url;
    const controller = new AbortController();
    const { response } = await requestHub(hub, listing, {}, controller, `the file list of ${repo}`);
    if (!response.ok) throw await httpError(response, listing, `the file list of ${repo}@${revision}`, hub);
    let body: unknown;
    const idle = startIdleTimer(controller, hub.idleTimeoutMs);
    try {
      body = await response.json();
    } catch (error) {
      const why = controller.signal.aborted ? `no data for ${Math.round(hub.idleTimeoutMs / 1000)} s` : `not JSON: ${describeError(error)}`;
      throw new MoonError('io', `the file list of ${repo}: ${listing} (${why})`, { hint: controller.signal.aborted ? hub.unreachableHint || undefined : 'is models.endpoint a model hub?' });
    } finally {
      idle.stop();
    }
    files.push(...parseTree(body, listing));
    url = nextPage(response.headers.get('link'), listing);
  }
  return files;
}

function parseTree(body: unknown, url: string): HubFile[] {
  if (!Array.isArray(body)) throw new MoonError('io', `${url}: the hub's file list is not a JSON array`, { hint: 'is models.endpoint a model hub?' });
  const files: HubFile[] = [];
  for (const item of body as unknown[]) {
    const entry = item as Record<string, unknown> | null;
    if (!entry || typeof entry !== 'object' || entry.type !== 'file') continue;
    const { path, size, oid, lfs } = entry;
    if (typeof path !== 'string' || typeof oid !== 'string' || typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
      throw new MoonError('io', `${url}: a file in the hub's list has no path, size or oid: ${JSON.stringify(item).slice(0, 200)}`);
    }
    const large = lfs as Record<string, unknown> | undefined;
    if (large && typeof large === 'object' && typeof large.oid === 'string' && typeof large.size === 'number') {
      files.push({ path, size: large.size, oid, lfs: { oid: large.oid, size: large.size } });
    } else {
      files.push({ path, size, oid });
    }
  }
  return files;
}

function nextPage(link: string | null, current: string): string | null {
  const match = link ? /<([^>]+)>\s*;\s*rel="?next"?/.exec(link) : null;
  return match ? new URL(match[1]!, current).href : null;
}

export interface DownloadRequest {
  /** The file's resolve URL on the hub. */
  url: string;
  /** The repo path, for messages. */
  path: string;
  /** Where the bytes go: appended to when it holds the start of the file already. */
  partPath: string;
  size: number;
  /** Bytes of the file on disk so far. */
  onBytes?: (bytes: number) => void;
}

export interface DownloadOutcome {
  /** Bytes that were on disk already and were not fetched again (0: a fresh download or a restart). */
  resumedFrom: number;
  /** Bytes fetched by this call. */
  fetched: number;
}

/**
 * Fetch a file into `partPath`, resuming what an earlier run left there with `Range: bytes=N-`. A server that
 * answers 200 to the range sends the whole file: the part file is started over. Errors name the file and the URL;
 * what was written stays, so the next run resumes.
 */
export async function downloadFile(hub: Hub, request: DownloadRequest): Promise<DownloadOutcome> {
  let offset = await sizeOf(request.partPath);
  if (offset > request.size) {
    await rm(request.partPath, { force: true });
    offset = 0;
  }
  if (offset === request.size) {
    if (offset === 0) await (await openPart(request.partPath, 'w')).close();
    request.onBytes?.(offset);
    return { resumedFrom: offset, fetched: 0 };
  }
  const controller = new AbortController();
  let { response } = await requestHub(hub, request.url, offset > 0 ? { range: `bytes=${offset}-` } : {}, controller, request.path);
  if (response.status === 416 && offset > 0) {
    // The range does not fit the file (it changed on the hub): fetch it whole.
    await response.body?.cancel();
    await rm(request.partPath, { force: true });
    offset = 0;
    ({ response } = await requestHub(hub, request.url, {}, controller, request.path));
  }
  let append: boolean;
  if (response.status === 206 && offset > 0) {
    const range = response.headers.get('content-range') ?? '';
    if (!range.startsWith(`bytes ${offset}-`)) {
      await response.body?.cancel();
      throw new MoonError('io', `${request.path}: ${request.url} answered the range from byte ${offset} with "${range}"`, { hint: 'run the command again: the part file is kept' });
    }
    append = true;
  } else if (response.status === 200) {
    append = false; // the whole file, whatever was asked: start over
    offset = 0;
  } else {
    throw await httpError(response, request.url, request.path, hub);
  }
  const handle = await openPart(request.partPath, append ? 'a' : 'w');
  let written = offset;
  const idle = startIdleTimer(controller, hub.idleTimeoutMs);
  try {
    if (!response.body) throw new Error('the response has no body');
    for await (const chunk of response.body) {
      idle.reset();
      await handle.write(chunk);
      written += chunk.byteLength;
      request.onBytes?.(written);
      if (written > request.size) break;
    }
  } catch (error) {
    throw stoppedError(request, written, controller.signal.aborted ? `no data for ${Math.round(hub.idleTimeoutMs / 1000)} s` : describeNetworkError(error), error);
  } finally {
    idle.stop();
    await handle.close();
  }
  if (written > request.size) {
    await rm(request.partPath, { force: true });
    throw new MoonError('io', `${request.path}: ${request.url} sent more than the ${request.size} bytes the hub lists; the part file was deleted`, { hint: 'run the command again' });
  }
  if (written < request.size) throw stoppedError(request, written, 'the connection closed early');
  return { resumedFrom: append ? offset : 0, fetched: written - (append ? offset : 0) };
}

function stoppedError(request: DownloadRequest, written: number, why: string, cause?: unknown): MoonError {
  return new MoonError('io', `${request.path}: the download from ${request.url} stopped after ${written} of ${request.size} bytes (${why})`, {
    hint: 'run the same command again: it resumes where this one stopped',
    cause,
  });
}

/**
 * One GET, its redirects followed by hand: the token goes only to the hub's own origin, never to the CDN a
 * redirect leads to. Returns the final response (any status but a redirect).
 */
async function requestHub(hub: Hub, url: string, headers: Record<string, string>, controller: AbortController, what: string): Promise<{ response: Response; url: string }> {
  const origin = new URL(hub.endpoint).origin;
  let current = url;
  const idle = startIdleTimer(controller, hub.idleTimeoutMs);
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const sent: Record<string, string> = { 'user-agent': 'moon-memory', ...headers };
      if (hub.token && new URL(current).origin === origin) sent.authorization = `Bearer ${hub.token}`;
      let response: Response;
      try {
        response = await fetch(current, { headers: sent, redirect: 'manual', signal: controller.signal });
      } catch (error) {
        const why = controller.signal.aborted ? `no answer for ${Math.round(hub.idleTimeoutMs / 1000)} s` : describeNetworkError(error);
        throw new MoonError('io', `${what}: cannot reach the model hub at ${current} (${why})`, { hint: hub.unreachableHint || undefined, cause: error });
      }
      if (![301, 302, 303, 307, 308].includes(response.status)) return { response, url: current };
      const location = response.headers.get('location');
      await response.body?.cancel();
      if (!location) throw new MoonError('io', `${what}: ${current} redirected (HTTP ${response.status}) without a Location`);
      current = new URL(location, current).href;
    }
  } finally {
    idle.stop();
  }
  throw new MoonError('io', `${what}: more than ${MAX_REDIRECTS} redirects from ${url}`);
}

async function httpError(response: Response, url: string, what: string, hub: Hub): Promise<MoonError> {
  await response.body?.cancel().catch(() => undefined);
  const status = `HTTP ${response.status}`;
  if (response.status === 401 || response.status === 403) {
    return new MoonError('bad_config', `${what}: the hub refused ${url} (${status})`, {
      hint: hub.token ? 'the token was refused: check it, and that it may read this model' : 'a private or gated model needs a token: put it in HF_TOKEN (models.token_env names another variable)',
    });
  }
  if (response.status === 404) return new MoonError('not_found', `${what}: not on the hub (${status} from ${url})`, { hint: 'check the repo name (owner/name) and the revision' });
  return new MoonError('io', `${what}: ${url} answered ${status}`, { hint: response.status === 429 || response.status >= 500 ? 'the hub is busy or failing: try again later (the download resumes)' : undefined });
}

/** What a failed fetch says, down to the system call (ECONNREFUSED, ENOTFOUND, …). */
function describeNetworkError(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = errnoOf(current) ?? (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return `${code}${(current as { hostname?: string }).hostname ? ` ${(current as { hostname?: string }).hostname}` : ''}`;
    current = (current as { cause?: unknown }).cause;
  }
  return describeError(error);
}

function startIdleTimer(controller: AbortController, ms: number): { reset(): void; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  const reset = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(), ms);
    timer.unref();
  };
  reset();
  return { reset, stop: () => clearTimeout(timer) };
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return 0;
    throw toIoError(path, error, 'read');
  }
}

async function openPart(path: string, flags: 'a' | 'w'): Promise<FileHandle> {
  try {
    return await open(path, flags, 0o600);
  } catch (error) {
    throw toIoError(path, error, 'write');
  }
}
