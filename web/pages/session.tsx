import { useEffect, useMemo, useState } from 'preact/hooks';
import { type SessionGot, type ShownEntry, getJson, postJson } from '../api.js';
import { linkTo } from '../route.js';
import { describeSession, formatDuration, formatTime } from '../format.js';
import { Markdown } from '../markdown.js';
import { ErrorNote } from './shared.js';

/** Entries rendered at a time: a 5,000-message session opens at once and grows as it is read. */
const PAGE = 200;

/** One session: its messages in order, each tool call folded with its outcome; opened at a message from a search hit. */
export function SessionPage({ id, at }: { id: string; at: string | null }) {
  const [got, setGot] = useState<SessionGot | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [shown, setShown] = useState(PAGE);
  const [markers, setMarkers] = useState<Marker[]>([]);
  const [outline, setOutline] = useState<{ title: string; body: string }[]>([]);
  useEffect(() => {
    getJson<SessionGot>(`/v1/sessions/${encodeURIComponent(id)}`, { entries: 'all' }).then((answer) => {
      setGot(answer);
      setOutline(readOutline(answer.projection ?? ''));
    }, setError);
    getJson<{ markers: Marker[] }>('/v1/markers', { session_id: id, limit: 200 }).then((answer) => setMarkers(answer.markers), () => setMarkers([]));
  }, [id]);
  const entries = got?.entries ?? [];
  const target = at === null ? -1 : entries.findIndex((entry) => entry.id === at);
  // Opened at a message: enough of the session is rendered to hold it.
  useEffect(() => {
    if (target >= shown) setShown(target + PAGE / 2);
  }, [target]);
  useEffect(() => {
    if (target < 0) return;
    document.getElementById(`m-${at}`)?.scrollIntoView({ block: 'center' });
  }, [target, shown >= target]);
  const files = useMemo(() => listFiles(entries), [entries]);
  if (error) return <ErrorNote error={error} />;
  if (!got) return <p class="loading">Loading session…</p>;
  const session = got.session;
  return (
    <section>
      <h1>{describeSession(session.title, session.first_prompt, 200)}</h1>
      <div class="meta">
        <span class="badge">{session.source}</span>
        {session.project ? <span>{session.project}</span> : null}
        <span>{formatTime(session.start)}</span>
        <span>{formatDuration(toMs(session.start), toMs(session.end))}</span>
        <span>{entries.length} messages</span>
        <CopyButton label="Copy session id" value={session.session_id} />
        <ForgetButton id={session.session_id} onError={setError} />
      </div>
      {outline.map((section) => (
        <details key={section.title} class="card" open={section.title.startsWith('Decisions')}>
          <summary>{section.title}</summary>
          <Markdown text={section.body} />
        </details>
      ))}
      {markers.length > 0 ? (
        <details class="card" open>
          <summary>Markers and decisions ({markers.length})</summary>
          <ul>
            {markers.map((marker) => (
              <li key={`${marker.entry_id}-${marker.line}-${marker.type}`}>
                <span class="badge">{marker.type}</span> <a href={linkTo('session', session.session_id, { at: marker.entry_id })}>{marker.content}</a>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {files.length > 0 ? (
        <details class="card">
          <summary>Files touched ({files.length})</summary>
          <ul>
            {files.map((file) => (
              <li key={file}>
                <code>{file}</code>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {entries.slice(0, shown).map((entry) => (
        <EntryView key={`${entry.id}-${entry.time}-${entry.role}`} entry={entry} focus={entry.id === at} />
      ))}
      {shown < entries.length ? (
        <button type="button" onClick={() => setShown(shown + PAGE)}>
          Show {Math.min(PAGE, entries.length - shown)} more of {entries.length - shown}
        </button>
      ) : null}
    </section>
  );
}

function EntryView({ entry, focus }: { entry: ShownEntry; focus: boolean }) {
  const classes = `entry ${entry.role}${focus ? ' target' : ''}`;
  const header = (
    <div class="meta">
      <strong>{entry.role === 'tool' && entry.tool ? entry.tool : entry.role}</strong>
      <span>{formatTime(entry.time)}</span>
      <CopyButton label="Copy id" value={entry.id} />
    </div>
  );
  if (entry.role === 'tool') {
    const outcome = describeOutcome(entry);
    return (
      <div class={classes} id={`m-${entry.id}`} data-id={entry.id}>
        {header}
        <details open={focus}>
          <summary>
            <code>{entry.target ?? entry.text.slice(0, 200)}</code> <span class={`outcome-${outcome.kind}`}>{outcome.label}</span>
          </summary>
          {entry.text && entry.text !== entry.target ? <pre>{entry.text}</pre> : null}
          {entry.result ? <pre>{entry.result}</pre> : null}
        </details>
      </div>
    );
  }
  return (
    <div class={classes} id={`m-${entry.id}`} data-id={entry.id}>
      {header}
      <div class="text">{entry.text}</div>
    </div>
  );
}

function toMs(iso: string | null): number | null {
  const ms = iso ? Date.parse(iso) : Number.NaN;
  return Number.isNaN(ms) ? null : ms;
}

function describeOutcome(entry: ShownEntry): { kind: 'ok' | 'failed' | 'unknown'; label: string } {
  if (typeof entry.exit_code === 'number') return entry.exit_code === 0 ? { kind: 'ok', label: 'exit 0' } : { kind: 'failed', label: `exit ${entry.exit_code}` };
  if (entry.status && /^(error|failed|failure)$/i.test(entry.status)) return { kind: 'failed', label: entry.status };
  if (entry.result?.startsWith('[error]')) return { kind: 'failed', label: 'error' };
  return entry.result ? { kind: 'ok', label: entry.status ?? 'done' } : { kind: 'unknown', label: 'no result' };
}

const FILE_TOOLS = /^(read|write|edit|multiedit|notebookedit|apply_patch|write_file|edit_file|create_file|read_file|view|str_replace_based_edit_tool)$/i;

function listFiles(entries: readonly ShownEntry[]): string[] {
  const files = new Set<string>();
  for (const entry of entries) if (entry.role === 'tool' && entry.tool && FILE_TOOLS.test(entry.tool) && entry.target) files.add(entry.target);
  return [...files];
}

function CopyButton({ label, value }: { label: string; value: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="copy"
      title={value}
      onClick={() => {
        void navigator.clipboard?.writeText(value).then(() => setDone(true), () => setDone(false));
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

interface Marker {
  type: string;
  content: string;
  entry_id: string;
  line: number;
}

/** `moon forget` for this session, after the person confirms: its messages, index rows and projection go. */
function ForgetButton({ id, onError }: { id: string; onError: (error: unknown) => void }) {
  return (
    <button
      type="button"
      class="danger"
      onClick={() => {
        if (!confirm(`Forget session ${id}? Its messages, index and projection are removed from moon, and it is not indexed again.`)) return;
        postJson('/v1/forget', { session_id: id, confirm: true }).then(() => {
          location.hash = linkTo('timeline');
        }, onError);
      }}
    >
      Forget…
    </button>
  );
}

/** The projection's sections a reader wants beside the messages: its decisions and outcomes, and what compactions left. */
const OUTLINE = ['Decisions & Outcomes', 'Compaction Notes'];

function readOutline(projection: string): { title: string; body: string }[] {
  const sections: { title: string; body: string }[] = [];
  const parts = projection.split(/^## /m).slice(1);
  for (const part of parts) {
    const newline = part.indexOf('\n');
    const title = (newline < 0 ? part : part.slice(0, newline)).trim();
    if (OUTLINE.includes(title)) sections.push({ title, body: newline < 0 ? '' : part.slice(newline + 1).trim() });
  }
  return sections;
}
