import { useEffect, useRef, useState } from 'preact/hooks';
import { type Explanation, type RecallMatch, type RecallResult, postJson } from '../api.js';
import { formatTime } from '../format.js';
import { linkTo } from '../route.js';
import { AgentOptions, ErrorNote, Marked, markableWords } from './shared.js';

/** The built-in `@/` marker types (a configured one is still found by words). */
const MARKERS = ['decision', 'breaking', 'security', 'bug', 'api', 'pattern', 'perf', 'todo', 'ref'];

/** Recall as you type (debounced), with the facets recall takes and its explain view. */
const DEBOUNCE_MS = 250;

interface Facets {
  query: string;
  group: 'session' | 'message';
  project: string;
  source: string;
  role: string;
  tool: string;
  marker: string;
  priority: string;
  since: string;
  until: string;
  explain: boolean;
}

export function SearchPage({ params }: { params: URLSearchParams }) {
  const [facets, setFacets] = useState<Facets>({
    query: params.get('q') ?? '',
    group: params.get('group') === 'message' ? 'message' : 'session',
    project: params.get('project') ?? '',
    source: params.get('source') ?? '',
    role: params.get('role') ?? '',
    tool: params.get('tool') ?? '',
    marker: params.get('marker') ?? '',
    priority: params.get('priority') ?? '',
    since: params.get('since') ?? '',
    until: params.get('until') ?? '',
    explain: params.get('explain') === '1',
  });
  const [result, setResult] = useState<RecallResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const asked = useRef(0);
  useEffect(() => {
    if (facets.query.trim() === '') {
      setResult(null);
      return;
    }
    const ask = ++asked.current;
    const timer = setTimeout(() => {
      setBusy(true);
      postJson<RecallResult>('/v1/recall', buildRequest(facets)).then(
        (answer) => {
          if (ask !== asked.current) return;
          setResult(answer);
          setError(null);
          setBusy(false);
        },
        (caught: unknown) => {
          if (ask !== asked.current) return;
          setError(caught);
          setBusy(false);
        },
      );
      history.replaceState(null, '', linkTo('search', null, { q: facets.query, group: facets.group === 'message' ? 'message' : undefined, explain: facets.explain ? '1' : undefined }));
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [facets]);
  const set = (patch: Partial<Facets>) => setFacets({ ...facets, ...patch });
  const words = markableWords(facets.query);
  return (
    <section>
      <h1>Search</h1>
      <form class="filters" role="search" onSubmit={(event) => event.preventDefault()}>
        <label>
          What are you looking for?
          <input type="search" name="q" value={facets.query} autoFocus placeholder="why did the build fail" onInput={(event) => set({ query: event.currentTarget.value })} />
        </label>
        <label>
          Group
          <select value={facets.group} onChange={(event) => set({ group: event.currentTarget.value as Facets['group'] })}>
            <option value="session">sessions</option>
            <option value="message">messages</option>
          </select>
        </label>
        <label>
          Project
          <input value={facets.project} placeholder="any" onChange={(event) => set({ project: event.currentTarget.value })} />
        </label>
        <label>
          Agent
          <select value={facets.source} onChange={(event) => set({ source: event.currentTarget.value })}>
            <AgentOptions />
          </select>
        </label>
        <label>
          Role
          <select value={facets.role} onChange={(event) => set({ role: event.currentTarget.value })}>
            <option value="">any</option>
            <option value="user">user</option>
            <option value="assistant">assistant</option>
            <option value="tool">tool</option>
          </select>
        </label>
        <label>
          Tool
          <input value={facets.tool} placeholder="Bash, Edit…" onChange={(event) => set({ tool: event.currentTarget.value })} />
        </label>
        <label>
          Marker
          <select value={facets.marker} onChange={(event) => set({ marker: event.currentTarget.value })}>
            <option value="">any</option>
            {MARKERS.map((marker) => (
              <option key={marker} value={marker}>
                @/{marker}
              </option>
            ))}
          </select>
        </label>
        <label>
          Priority
          <select value={facets.priority} onChange={(event) => set({ priority: event.currentTarget.value })}>
            <option value="">any</option>
            <option value="high">high (changes things)</option>
            <option value="normal">normal</option>
          </select>
        </label>
        <label>
          Since
          <input value={facets.since} placeholder="last week" onChange={(event) => set({ since: event.currentTarget.value })} />
        </label>
        <label>
          Until
          <input value={facets.until} placeholder="yesterday" onChange={(event) => set({ until: event.currentTarget.value })} />
        </label>
        <label class="row">
          <input type="checkbox" checked={facets.explain} onChange={(event) => set({ explain: event.currentTarget.checked })} /> Explain
        </label>
      </form>
      <ErrorNote error={error} />
      {busy && !result ? <p class="loading">Searching…</p> : null}
      {result?.notes?.map((note) => (
        <p key={note} class="empty">
          {note}
        </p>
      ))}
      {result && result.matches.length === 0 ? <p class="empty">Nothing found for “{result.query}”.</p> : null}
      {result?.matches.map((match) => (
        <MatchCard key={`${match.metadata.session_id}-${match.metadata.message_ids[0]}`} match={match} words={words} />
      ))}
    </section>
  );
}

function buildRequest(facets: Facets): Record<string, unknown> {
  const request: Record<string, unknown> = { query: facets.query, group: facets.group, explain: facets.explain };
  if (facets.project) request.project = facets.project;
  if (facets.source) request.source = facets.source;
  if (facets.role) request.role = facets.role;
  if (facets.tool) request.tool = facets.tool;
  if (facets.marker) request.marker = facets.marker;
  if (facets.priority) request.priority = facets.priority;
  if (facets.since) request.since = facets.since;
  if (facets.until) request.until = facets.until;
  return request;
}

function MatchCard({ match, words }: { match: RecallMatch; words: readonly string[] }) {
  const meta = match.metadata;
  const lines = match.snippet.split('\n');
  return (
    <article class="card" data-session={meta.session_id}>
      <div class="meta">
        <span class="badge">{meta.source}</span>
        {meta.project ? <span>{meta.project}</span> : null}
        <span>{formatTime(meta.session_start)}</span>
        <span>{meta.match_count} matches</span>
        <span>score {match.score}</span>
        {meta.time_window === 'outside' ? <span class="badge">outside the time asked</span> : null}
      </div>
      {lines.map((line, index) => {
        const id = meta.message_ids[index];
        return (
          <div key={index} class="entry">
            <a href={linkTo('session', meta.session_id, id ? { at: id } : {})} class="meta">
              {formatTime(meta.timestamps[index] ?? null)} — open at this message
            </a>
            <div class="text">
              <Marked text={line} words={words} />
            </div>
            {meta.explain?.[index] ? <ExplainLine explanation={meta.explain[index]!} /> : null}
          </div>
        );
      })}
    </article>
  );
}

function ExplainLine({ explanation }: { explanation: Explanation }) {
  const signals = Object.entries(explanation.signals)
    .map(([name, value]) => `${name} #${value.rank} (+${value.contribution})`)
    .join(', ');
  const boosts = explanation.boosts.map((boost) => `${boost.name} ×${boost.factor}`).join(', ');
  const fields = explanation.session_fields?.map((field) => `session ${field.field} (${field.terms.join(', ')})`).join('; ');
  const terms = explanation.terms?.map((term) => (term.matched ? `${term.term} in ${term.fields.join(', ') || 'a neighbour'}` : `${term.term} not matched`)).join('; ');
  return (
    <p class="explain">
      {signals}
      {boosts ? `; ${boosts}` : ''} = {explanation.score}
      {terms ? ` · ${terms}` : ''}
      {fields ? ` · ${fields}` : ''}
    </p>
  );
}
