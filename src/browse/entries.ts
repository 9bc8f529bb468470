import { MoonError } from '../errors.js';
import type { BrowsePort } from '../store/ports.js';
import { resolveZone } from '../time/format.js';
import { type SessionNotFound, type ShownSession, readShownSessions, resolveSession, toShownEntry } from './show.js';
import type { TimelineEntry } from './timeline.js';

/** Full entries by the message ids recall returns (`metadata.message_ids`). */
export interface EntriesRequest {
  ids: readonly string[];
  /** Only in this session (id or unique prefix). Without it an id is looked up in every session. */
  sessionId?: string;
  /** Zone of the local times shown; default the residential zone. */
  tz?: string;
}

export interface EntriesFound {
  found: true;
  timezone: string;
  /** In the order the ids were asked for; an id found in several sessions gives one entry per session. */
  entries: TimelineEntry[];
  /** Ids that matched no entry: reported, not an error. */
  missing: string[];
  /** The sessions the entries belong to. */
  sessions: ShownSession[];
}

export type EntriesResult = EntriesFound | SessionNotFound;

/** Ids one request may ask for. */
export const MAX_ENTRY_IDS = 100;

export async function readEntries(
  browse: BrowsePort,
  request: EntriesRequest,
  options: { timezone: string; projectionPathFor: (sessionId: string) => string },
): Promise<EntriesResult> {
  const ids = request.ids;
  if (!Array.isArray(ids) || ids.length === 0 || ids.some((id) => typeof id !== 'string' || id.trim() === '')) {
    throw new MoonError('bad_input', 'ids: must be a list of one or more message ids', { field: 'ids' });
  }
  if (ids.length > MAX_ENTRY_IDS) {
    throw new MoonError('bad_input', `ids: at most ${MAX_ENTRY_IDS} ids at a time, got ${ids.length}`, { field: 'ids' });
  }
  const zone = resolveZone(request.tz ?? options.timezone);
  let sessionId: string | undefined;
  if (request.sessionId !== undefined) {
    const resolved = await resolveSession(browse, request.sessionId);
    if (!resolved.found) return resolved;
    sessionId = resolved.session.id;
  }
  const wanted = ids.map((id) => id.trim());
  const found = await browse.getEntriesByIds(wanted, sessionId);
  const byId = new Map<string, typeof found>();
  for (const entry of found) byId.set(entry.id, [...(byId.get(entry.id) ?? []), entry]);
  const seen = new Set<string>();
  const entries: TimelineEntry[] = [];
  const missing: string[] = [];
  for (const id of wanted) {
    if (seen.has(id)) continue;
    seen.add(id);
    const matches = byId.get(id);
    if (!matches) missing.push(id);
    else for (const entry of matches) entries.push(toShownEntry(entry, zone, false));
  }
  const sessions = await readShownSessions(browse, entries.map((entry) => entry.session_id), zone, options.projectionPathFor);
  return { found: true, timezone: zone, entries, missing, sessions };
}
