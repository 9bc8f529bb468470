import { useEffect, useState } from 'preact/hooks';
import { getJson, postJson } from '../api.js';
import { formatTime } from '../format.js';
import { Markdown } from '../markdown.js';
import { linkTo } from '../route.js';
import { ErrorNote } from './shared.js';

interface Memory {
  id: string;
  text: string;
  namespace_id: string;
  scope: string;
  review_state: 'draft' | 'approved' | 'deprecated';
  provenance: { source: string; session_ids: string[]; message_ids: string[] }[];
  version: number;
  updated_at_ms: number;
}

interface MemoryFile {
  name: string;
  bytes: number;
  modified_ms: number;
}

interface Digest {
  session_id: string;
  title: string;
  produced_by: string;
  body: { intent: { text: string } | null; outcome: { text: string; status: string }; changes: { text: string }[] };
}

/**
 * What moon has learned: long-term memories with their review state and where they came from — drafts approved,
 * edited or deprecated here as with `moon memory` (moon proposes, a person approves) — the daily files and
 * MEMORY.md, and run digests.
 */
export function MemoryPage() {
  const [state, setState] = useState('draft');
  const [memories, setMemories] = useState<Memory[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [files, setFiles] = useState<MemoryFile[]>([]);
  const [open, setOpen] = useState<{ name: string; text: string } | null>(null);
  const [digests, setDigests] = useState<Digest[]>([]);
  const reload = () =>
    getJson<{ memories: Memory[] }>('/v1/memories/all', { state: state === 'all' ? undefined : state }).then((answer) => {
      setMemories(answer.memories);
      setError(null);
    }, setError);
  useEffect(() => void reload(), [state]);
  useEffect(() => {
    getJson<{ files: MemoryFile[] }>('/v1/memory-files').then((answer) => setFiles(answer.files), setError);
    getJson<{ digests: Digest[] }>('/v1/digests', { limit: 30 }).then((answer) => setDigests(answer.digests), setError);
  }, []);
  const review = (id: string, next: Memory['review_state']) => postJson('/v1/memories/state', { id, state: next }).then(reload, setError);
  const edit = (id: string, text: string) => postJson('/v1/memories/text', { id, text }).then(reload, setError);
  return (
    <section>
      <h1>Memory</h1>
      <ErrorNote error={error} />
      <h2>Long-term memories</h2>
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          Review state
          <select value={state} onChange={(event) => setState(event.currentTarget.value)}>
            <option value="draft">drafts to review</option>
            <option value="approved">approved</option>
            <option value="deprecated">deprecated</option>
            <option value="all">all</option>
          </select>
        </label>
      </form>
      {memories === null ? <p class="loading">Loading memories…</p> : null}
      {memories !== null && memories.length === 0 ? <p class="empty">No {state === 'all' ? '' : `${state} `}memories.</p> : null}
      {memories?.map((memory) => <MemoryCard key={memory.id} memory={memory} onReview={review} onEdit={edit} />)}
      <h2>Daily files and MEMORY.md</h2>
      {files.length === 0 ? <p class="empty">None yet: the watcher writes them as it distills sessions (`moon distill`).</p> : null}
      <div class="row">
        {files.map((file) => (
          <button key={file.name} type="button" onClick={() => getJson<{ name: string; text: string }>(`/v1/memory-files/${encodeURIComponent(file.name)}`).then(setOpen, setError)}>
            {file.name}
          </button>
        ))}
      </div>
      {open ? (
        <article class="card" data-file={open.name}>
          <h3>{open.name}</h3>
          <Markdown text={open.text} />
        </article>
      ) : null}
      <h2>Run digests</h2>
      {digests.length === 0 ? <p class="empty">No digests yet (`moon digest`).</p> : null}
      {digests.map((digest) => (
        <article key={digest.session_id} class="card">
          <h3>
            <a href={linkTo('session', digest.session_id)}>{digest.title}</a>
          </h3>
          <div class="meta">
            <span class="badge">{digest.produced_by}</span>
            <span class={`outcome-${digest.body.outcome.status === 'failed' ? 'failed' : 'ok'}`}>{digest.body.outcome.status}</span>
          </div>
          {digest.body.intent ? <p>{digest.body.intent.text}</p> : null}
          <p class="explain">{digest.body.outcome.text}</p>
        </article>
      ))}
    </section>
  );
}

function MemoryCard({ memory, onReview, onEdit }: { memory: Memory; onReview: (id: string, state: Memory['review_state']) => void; onEdit: (id: string, text: string) => void }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(memory.text);
  const sessions = [...new Set(memory.provenance.flatMap((item) => item.session_ids))];
  return (
    <article class="card" data-memory={memory.id} data-state={memory.review_state}>
      <div class="meta">
        <span class="badge">{memory.review_state}</span>
        <span>{memory.namespace_id}</span>
        <span>{memory.scope}</span>
        <span>v{memory.version}</span>
        <span>{formatTime(new Date(memory.updated_at_ms).toISOString())}</span>
      </div>
      {editing ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            onEdit(memory.id, text);
            setEditing(false);
          }}
        >
          <textarea value={text} rows={4} onInput={(event) => setText(event.currentTarget.value)} aria-label="Memory text" />
          <div class="row">
            <button type="submit">Save</button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <p>{memory.text}</p>
      )}
      <div class="meta">
        {memory.provenance.map((item, index) => (
          <span key={index}>from {item.source}</span>
        ))}
        {sessions.map((id) => (
          <a key={id} href={linkTo('session', id)}>
            session {id.slice(0, 8)}
          </a>
        ))}
      </div>
      <div class="row">
        {memory.review_state !== 'approved' ? (
          <button type="button" onClick={() => onReview(memory.id, 'approved')}>
            Approve
          </button>
        ) : null}
        {memory.review_state !== 'deprecated' ? (
          <button type="button" class="danger" onClick={() => onReview(memory.id, 'deprecated')}>
            Deprecate
          </button>
        ) : null}
        {!editing ? (
          <button type="button" onClick={() => setEditing(true)}>
            Edit
          </button>
        ) : null}
      </div>
    </article>
  );
}
