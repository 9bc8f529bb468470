import { useEffect, useState } from 'preact/hooks';
import { type SessionSummary, type SessionList, getJson } from '../api.js';
import { describeSession, formatDay, formatDuration, formatTime } from '../format.js';
import { linkTo } from '../route.js';
import { AgentOptions, ErrorNote } from './shared.js';

/** How often the list is read again while the page is open: new sessions appear as the watcher indexes them. */
const REFRESH_MS = 10_000;
const LIMIT = 200;

/** Sessions by day, newest first, each with its project, agent, duration, messages and tools; filters as typed. */
export function TimelinePage({ params }: { params: URLSearchParams }) {
  const [filters, setFilters] = useState({ project: params.get('project') ?? '', source: params.get('source') ?? '', since: params.get('since') ?? '', until: params.get('until') ?? '' });
  const [list, setList] = useState<SessionList | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let stopped = false;
    const load = () =>
      getJson<SessionList>('/v1/sessions', { ...filters, limit: LIMIT }).then(
        (answer) => {
          if (stopped) return;
          setList(answer);
          setError(null);
        },
        (caught: unknown) => !stopped && setError(caught),
      );
    void load();
    const timer = setInterval(() => document.visibilityState === 'visible' && void load(), REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [filters.project, filters.source, filters.since, filters.until]);
  const [markers, setMarkers] = useState<Map<string, number>>(new Map());
  useEffect(() => {
    getJson<{ markers: { session_id: string }[] }>('/v1/markers', { since: filters.since, until: filters.until, limit: 1000 }).then(
      (answer) => {
        const counts = new Map<string, number>();
        for (const marker of answer.markers) counts.set(marker.session_id, (counts.get(marker.session_id) ?? 0) + 1);
        setMarkers(counts);
      },
      () => setMarkers(new Map()),
    );
  }, [filters.since, filters.until, list]);
  const days = groupByDay(list?.sessions ?? []);
  return (
    <section>
      <h1>Timeline</h1>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          const data = new FormData(event.currentTarget);
          setFilters({ project: String(data.get('project') ?? ''), source: String(data.get('source') ?? ''), since: String(data.get('since') ?? ''), until: String(data.get('until') ?? '') });
        }}
      >
        <label>
          Project
          <input name="project" defaultValue={filters.project} placeholder="any" />
        </label>
        <label>
          Agent
          <select name="source" defaultValue={filters.source}>
            <AgentOptions />
          </select>
        </label>
        <label>
          Since
          <input name="since" defaultValue={filters.since} placeholder="last week, 2026-02-01" />
        </label>
        <label>
          Until
          <input name="until" defaultValue={filters.until} placeholder="yesterday" />
        </label>
        <button type="submit">Show</button>
      </form>
      <ErrorNote error={error} />
      {list === null && error === null ? <p class="loading">Loading sessions…</p> : null}
      {list !== null && list.sessions.length === 0 ? <p class="empty">No sessions match. Index some with `moon index`.</p> : null}
      {days.map(([day, sessions]) => (
        <div key={day}>
          <h2>{day}</h2>
          {sessions.map((session) => (
            <SessionCard key={session.session_id} session={session} markers={markers.get(session.session_id) ?? 0} />
          ))}
        </div>
      ))}
      {list !== null && list.sessions.length >= LIMIT ? <p class="empty">The newest {LIMIT} sessions are shown; narrow the dates to see older ones.</p> : null}
    </section>
  );
}

function SessionCard({ session, markers }: { session: SessionSummary; markers: number }) {
  const tools = session.tools.map((tool) => `${tool.name} ×${tool.count}`).join(', ');
  return (
    <article class="card" data-session={session.session_id}>
      <h3>
        <a href={linkTo('session', session.session_id)}>{describeSession(session.title, session.first_prompt)}</a>
      </h3>
      <div class="meta">
        <span class="badge">{session.source}</span>
        {session.project ? <span>{session.project}</span> : null}
        <span>{formatTime(session.start)}</span>
        <span>{formatDuration(session.start_ms, session.end_ms)}</span>
        <span>{session.message_count} messages</span>
        {tools ? <span>{tools}</span> : null}
        {markers > 0 ? <span class="badge">{markers} @/ markers</span> : null}
        {session.parent_session_id ? <span class="badge">subagent</span> : null}
      </div>
    </article>
  );
}

function groupByDay(sessions: readonly SessionSummary[]): [string, SessionSummary[]][] {
  const days = new Map<string, SessionSummary[]>();
  for (const session of sessions) {
    const day = formatDay(session.start_ms);
    days.set(day, [...(days.get(day) ?? []), session]);
  }
  return [...days];
}
