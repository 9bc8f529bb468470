/** The page speaks to the same server that served it, through moon's own HTTP API (docs/cli.md, moon serve). */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

async function readAnswer<T>(response: Response): Promise<T> {
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    throw new ApiError(response.status, 'bad_answer', `the server answered ${response.status} with something that is not JSON`);
  }
  if (!response.ok) {
    const error = (body as { error?: { code?: string; message?: string; hint?: string } } | null)?.error;
    throw new ApiError(response.status, error?.code ?? 'http', error?.message ?? `HTTP ${response.status}`, error?.hint);
  }
  return body as T;
}

/** GET a route with its query parameters (empty ones left out). */
export async function getJson<T>(path: string, params: Record<string, string | number | undefined | null> = {}): Promise<T> {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') query.set(key, String(value));
  const url = query.size > 0 ? `${path}?${query.toString()}` : path;
  return readAnswer<T>(await fetch(url, { headers: { accept: 'application/json' } }));
}

/** POST a JSON body: every state-changing call is JSON, which a page of another origin cannot send unasked. */
export async function postJson<T>(path: string, body: unknown): Promise<T> {
  return readAnswer<T>(await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) }));
}

export interface ToolCount {
  name: string;
  count: number;
}

export interface SessionSummary {
  session_id: string;
  source: string;
  project: string | null;
  cwd: string | null;
  title: string | null;
  first_prompt: string | null;
  start: string | null;
  end: string | null;
  start_ms: number | null;
  end_ms: number | null;
  message_count: number;
  turn_count: number;
  tools: ToolCount[];
  parent_session_id: string | null;
}

export interface SessionList {
  timezone: string;
  sessions: SessionSummary[];
}

export interface ShownEntry {
  id: string;
  role: string;
  time: string | null;
  text: string;
  tool?: string | null;
  target?: string | null;
  result?: string | null;
  exit_code?: number | null;
  status?: string | null;
  priority?: string | null;
  [key: string]: unknown;
}

export interface SessionGot {
  found: true;
  timezone: string;
  session: SessionSummary & { projection_path: string };
  projection: string | null;
  slice: { total_entries: number } | null;
  entries: ShownEntry[];
}

export interface RecallMatch {
  archive_path: string;
  snippet: string;
  score: number;
  metadata: {
    session_id: string;
    source: string;
    project: string | null;
    message_ids: string[];
    timestamps: (string | null)[];
    roles: string[];
    tools: (string | null)[];
    match_count: number;
    session_start: string | null;
    time_window?: 'inside' | 'outside';
    explain?: Explanation[];
  };
}

export interface Explanation {
  signals: Record<string, { rank: number; contribution: number }>;
  boosts: { name: string; factor: number }[];
  score: number;
  terms?: { term: string; fields: string[]; matched: boolean }[];
  session_fields?: { field: string; terms: string[] }[];
}

export interface RecallResult {
  query: string;
  matches: RecallMatch[];
  notes?: string[];
}
