import { useEffect, useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { linkTo } from '../route.js';
import { ErrorNote } from './shared.js';

interface Evidence {
  session_id: string;
  message_ids: string[];
  files: string[];
  state: string;
  target: string | null;
  stale_reason: string | null;
}

interface Pattern {
  signature: string;
  state: string;
  namespace_id: string;
  count: number;
  worked: number;
  sample: string;
  targets: string[];
  evidence: Evidence[];
}

/** Error signatures with the fixes that made them pass: state (claimed, verified, stale, open) and evidence. */
export function FixesPage() {
  const [query, setQuery] = useState('');
  const [patterns, setPatterns] = useState<Pattern[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const timer = setTimeout(() => getJson<{ patterns: Pattern[] }>('/v1/fixes', { query, limit: 100 }).then((answer) => setPatterns(answer.patterns), setError), 200);
    return () => clearTimeout(timer);
  }, [query]);
  return (
    <section>
      <h1>Fixes</h1>
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          Error or words
          <input type="search" value={query} placeholder="TS2339, ECONNREFUSED…" onInput={(event) => setQuery(event.currentTarget.value)} />
        </label>
      </form>
      <ErrorNote error={error} />
      {patterns === null ? <p class="loading">Loading fix patterns…</p> : null}
      {patterns !== null && patterns.length === 0 ? <p class="empty">No fix patterns{query ? ` for “${query}”` : ''}.</p> : null}
      {patterns?.map((pattern, index) => (
        <article key={index} class="card" data-signature={pattern.signature}>
          <h3>
            <code>{pattern.signature}</code>
          </h3>
          <div class="meta">
            <span class="badge">{pattern.state}</span>
            <span>{pattern.namespace_id}</span>
          </div>
          <p class="explain">
            seen {pattern.count}×, fixed {pattern.worked}× · {pattern.targets.join('; ')}
          </p>
          <pre>{pattern.sample}</pre>
          <div class="meta">
            {pattern.evidence.map((item, at) => (
              <a key={at} href={linkTo('session', item.session_id, item.message_ids[0] ? { at: item.message_ids[0] } : {})}>
                {item.state} in {item.session_id.slice(0, 8)}
                {item.files.length > 0 ? ` (edited ${item.files.map((file) => file.split('/').pop()).join(', ')})` : ''}
                {item.stale_reason ? ` — stale: ${item.stale_reason}` : ''}
              </a>
            ))}
          </div>
        </article>
      ))}
    </section>
  );
}
