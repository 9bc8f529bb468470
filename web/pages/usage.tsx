import { useEffect, useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { formatTime } from '../format.js';
import { linkTo } from '../route.js';
import { ErrorNote } from './shared.js';

interface UsageSession {
  session_id: string;
  source: string;
  project: string | null;
  title: string;
  start_ms: number | null;
  snapshots: { used_tokens: number; max_tokens: number; usage_ratio: number; captured_at_epoch_secs: number }[];
}

interface HookDay {
  day: string;
  event: string;
  runs: number;
  injections: number;
  tokens: number;
  failures: number;
}

const COLORS = ['#3451b2', '#1f7a3d', '#9a6700', '#b42318', '#6e56cf', '#0b7285'];

/** Where context went: each recent session's usage over time, and the tokens each hook handed agents per day. */
export function UsagePage() {
  const [data, setData] = useState<{ sessions: UsageSession[]; hooks: HookDay[] } | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    getJson<{ sessions: UsageSession[]; hooks: HookDay[] }>('/v1/usage', { limit: 30 }).then(setData, setError);
  }, []);
  if (error) return <ErrorNote error={error} />;
  if (!data) return <p class="loading">Loading usage…</p>;
  return (
    <section>
      <h1>Usage</h1>
      <h2>Tokens handed to agents, per hook and day</h2>
      <HookChart days={data.hooks} />
      <h2>Context usage per session</h2>
      {data.sessions.length === 0 ? <p class="empty">No session recorded its context usage yet.</p> : null}
      {data.sessions.map((session) => (
        <article key={session.session_id} class="card usage" data-session={session.session_id}>
          <div class="row">
            <a href={linkTo('session', session.session_id)}>{session.title}</a>
            <span class="badge">{session.source}</span>
          </div>
          <Sparkline snapshots={session.snapshots} />
        </article>
      ))}
    </section>
  );
}

/** Context used, as a share of the window, over the session's snapshots; the last value beside it. */
function Sparkline({ snapshots }: { snapshots: UsageSession['snapshots'] }) {
  const width = 320;
  const height = 48;
  const first = snapshots[0]!.captured_at_epoch_secs;
  const span = Math.max(1, snapshots[snapshots.length - 1]!.captured_at_epoch_secs - first);
  const points = snapshots.map((item) => `${(((item.captured_at_epoch_secs - first) / span) * (width - 4) + 2).toFixed(1)},${(height - 2 - Math.min(1, item.usage_ratio) * (height - 4)).toFixed(1)}`);
  const last = snapshots[snapshots.length - 1]!;
  const label = `${Math.round(last.usage_ratio * 100)}% of ${last.max_tokens.toLocaleString()} tokens at ${formatTime(new Date(last.captured_at_epoch_secs * 1000).toISOString())}`;
  return (
    <div class="row">
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`context usage: ${label}`}>
        <line x1="0" x2={width} y1={height - 2 - 0.8 * (height - 4)} y2={height - 2 - 0.8 * (height - 4)} class="threshold" />
        <polyline points={points.length > 1 ? points.join(' ') : `${points[0]} ${width - 2},${points[0]!.split(',')[1]}`} class="spark" />
      </svg>
      <span class="meta">{label}</span>
    </div>
  );
}

/** Stacked bars: one per day, one colour per hook event; a table with the same numbers below for keyboards and readers. */
function HookChart({ days }: { days: HookDay[] }) {
  if (days.length === 0) return <p class="empty">No hook has run yet (`moon install claude-code` registers them).</p>;
  const events = [...new Set(days.map((line) => line.event))];
  const byDay = new Map<string, HookDay[]>();
  for (const line of days) byDay.set(line.day, [...(byDay.get(line.day) ?? []), line]);
  const ordered = [...byDay.keys()].sort();
  const max = Math.max(1, ...ordered.map((day) => byDay.get(day)!.reduce((sum, line) => sum + line.tokens, 0)));
  const barWidth = 22;
  const height = 140;
  const width = Math.max(200, ordered.length * (barWidth + 6) + 10);
  return (
    <div class="card">
      <svg width="100%" height={height + 20} viewBox={`0 0 ${width} ${height + 20}`} preserveAspectRatio="xMinYMin meet" role="img" aria-label="tokens per hook per day">
        {ordered.map((day, index) => {
          let y = height;
          return (
            <g key={day}>
              {events.map((event, eventIndex) => {
                const tokens = byDay.get(day)!.find((line) => line.event === event)?.tokens ?? 0;
                const h = (tokens / max) * (height - 10);
                y -= h;
                return h > 0 ? <rect key={event} x={8 + index * (barWidth + 6)} y={y} width={barWidth} height={h} fill={COLORS[eventIndex % COLORS.length]}><title>{`${day} ${event}: ${tokens} tokens`}</title></rect> : null;
              })}
              <text x={8 + index * (barWidth + 6) + barWidth / 2} y={height + 14} text-anchor="middle" class="axis">
                {day.slice(5)}
              </text>
            </g>
          );
        })}
      </svg>
      <div class="row">
        {events.map((event, index) => (
          <span key={event} class="meta">
            <span class="swatch" data-color={index % COLORS.length} /> {event}
          </span>
        ))}
      </div>
      <details>
        <summary>As a table</summary>
        <table>
          <thead>
            <tr>
              <th>day</th>
              <th>hook</th>
              <th>runs</th>
              <th>injections</th>
              <th>tokens</th>
              <th>failures</th>
            </tr>
          </thead>
          <tbody>
            {days.map((line) => (
              <tr key={`${line.day}-${line.event}`}>
                <td>{line.day}</td>
                <td>{line.event}</td>
                <td>{line.runs}</td>
                <td>{line.injections}</td>
                <td>{line.tokens}</td>
                <td>{line.failures}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}
