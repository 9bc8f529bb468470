/**
 * Pages are addressed by the URL's hash (`#/session/<id>?at=<message id>`), so the server serves one document and
 * every view is a link that can be copied, bookmarked and opened with the back button.
 */
export interface Route {
  page: 'timeline' | 'session' | 'search' | 'memory' | 'fixes' | 'usage';
  /** The path after the page name (a session id). */
  arg: string | null;
  params: URLSearchParams;
}

const PAGES = ['timeline', 'session', 'search', 'memory', 'fixes', 'usage'] as const;

export function readRoute(hash: string = location.hash): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const [name = '', ...rest] = path.split('/');
  const page = (PAGES as readonly string[]).includes(name) ? (name as Route['page']) : 'timeline';
  const arg = rest.length > 0 ? decodeURIComponent(rest.join('/')) : null;
  return { page, arg, params: new URLSearchParams(query) };
}

export function linkTo(page: Route['page'], arg: string | null = null, params: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') query.set(key, value);
  return `#/${page}${arg === null ? '' : `/${encodeURIComponent(arg)}`}${query.size > 0 ? `?${query.toString()}` : ''}`;
}
