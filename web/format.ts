/** Local date and time of an ISO instant, as this browser's locale writes them. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** The day an instant falls on in this browser's zone, as a heading: "Sat, 21 Feb 2026". */
export function formatDay(ms: number | null): string {
  if (ms === null) return 'Undated';
  return new Date(ms).toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' });
}

/** `1 h 05 min`, `4 min`, `12 s`. */
export function formatDuration(startMs: number | null, endMs: number | null): string {
  if (startMs === null || endMs === null || endMs < startMs) return '—';
  const seconds = Math.round((endMs - startMs) / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** A session as people name it: its title, else its first request, cut. */
export function describeSession(title: string | null, firstPrompt: string | null, max = 120): string {
  if (title && title.trim() !== '') return title;
  const prompt = (firstPrompt ?? '').replace(/\s+/g, ' ').trim();
  if (prompt === '') return '(untitled)';
  return prompt.length > max ? `${prompt.slice(0, max - 1)}…` : prompt;
}
