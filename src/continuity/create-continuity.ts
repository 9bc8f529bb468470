import { readFileSync } from 'node:fs';
import { toHomeRelative } from '../archive/home-path.js';
import type { MoonPaths } from '../archive/paths.js';
import { resolveSessionId, toResolutionError } from '../browse/resolve-session-id.js';
import { MoonError, toIoError } from '../errors.js';
import type { ContinuityMap } from '../model.js';
import { extractDecisions } from '../normalize/decisions.js';
import type { BrowsePort } from '../store/ports.js';
import type { StoredSession } from '../store/types.js';
import { findProjectionRef, listArchiveRefs } from './archive-refs.js';
import { findDailyMemoryRefs } from './daily-memory.js';
import { composeContinuityMap } from './map.js';
import { readProjectionDecisions } from './projection-decisions.js';
import { chooseTargetSession } from './target.js';
import { writeContinuityMap } from './write-map.js';

/** `moon continuity` / moon.upkeep.continuity(). */
export interface ContinuityRequest {
  /** The session to continue from: an id, or a prefix of one that only one indexed session has. */
  from: string;
  /** The session that continues it; default: the current session, else the next session of the same project. */
  to?: string;
}

export interface ContinuityResult {
  map: ContinuityMap;
  /** The file the map was written to: `$MOON_HOME/continuity/continuity-<epoch>.json`. */
  path: string;
}

export interface ContinuityDeps {
  paths: MoonPaths;
  /** The index, or null when there is none yet (then only archive files and `--to` are used). */
  browse: BrowsePort | null;
  /** `session.current_id`: the session in progress, the natural target when none is named. */
  currentSessionId: string | null;
  nowMs: number;
}

/**
 * Build the source session's ContinuityMap and write it. The source must have an archive (a raw copy or a
 * projection): otherwise MoonError('not_found') naming it. The target is `to`, else the current session (when it
 * is another), else the newest later session of the same project in the index; with none of these the caller is
 * asked for `--to` (not_found). Decisions come from the projection's `## Decisions & Outcomes`, else from the
 * indexed entries (the same extraction), else there are none.
 */
export async function createContinuity(deps: ContinuityDeps, request: ContinuityRequest): Promise<ContinuityResult> {
  const wanted = request.from.trim();
  if (wanted === '') throw new MoonError('bad_usage', 'from: expected a session id', { field: 'from' });
  const stored = deps.browse ? await findIndexedSession(deps.browse, wanted) : null;
  const sourceId = stored?.id ?? wanted;
  const archiveRefs = listArchiveRefs(deps.paths, sourceId, stored);
  if (archiveRefs.length === 0) {
    throw new MoonError('not_found', `no archive for session ${sourceId} (nothing under ${deps.paths.raw} or ${deps.paths.mlib})`, {
      hint: 'run `moon snapshot` or `moon index` on its transcript first',
    });
  }
  const targetId = await chooseTarget(deps, sourceId, stored, request.to);
  const map = composeContinuityMap({
    sourceSessionId: sourceId,
    targetSessionId: targetId,
    // Files inside the home are named relative to it, so a moved or copied home's maps still name its files.
    archiveRefs: archiveRefs.map((ref) => toHomeRelative(deps.paths.home, ref)),
    dailyMemoryRefs: findDailyMemoryRefs(deps.paths.memory, sourceId).map((ref) => toHomeRelative(deps.paths.home, ref)),
    decisions: await readDecisions(archiveRefs, deps.browse, stored),
    nowMs: deps.nowMs,
  });
  return { map, path: writeContinuityMap(deps.paths.continuity, map) };
}

/** The indexed session an id names, exactly or as a unique prefix (resolve-session-id.ts); null when none does. */
async function findIndexedSession(browse: BrowsePort, wanted: string): Promise<StoredSession | null> {
  const resolution = await resolveSessionId(browse, wanted, 'from');
  if (resolution.kind === 'found') return browse.getSession(resolution.session.id);
  if (resolution.kind === 'ambiguous') throw toResolutionError(resolution, 'from');
  return null;
}

async function chooseTarget(deps: ContinuityDeps, sourceId: string, stored: StoredSession | null, to: string | undefined): Promise<string> {
  if (to !== undefined) {
    const named = to.trim();
    if (named === '') throw new MoonError('bad_usage', 'to: expected a session id', { field: 'to' });
    if (named === sourceId) throw new MoonError('bad_usage', `to: names the source session ${sourceId} itself`, { field: 'to' });
    return named;
  }
  if (deps.currentSessionId && deps.currentSessionId !== sourceId) return deps.currentSessionId;
  const hint = 'name the session to continue in with --to SESSION';
  if (!deps.browse || !stored) {
    throw new MoonError('not_found', `no session known to continue ${sourceId}: it is not in the index`, {
      hint: `${hint} (or run \`moon index\` so the next session of its project can be found)`,
    });
  }
  const end = stored.endMs ?? stored.startMs;
  const project = stored.cwd?.includes('/') ? stored.cwd : stored.project;
  const candidates =
    end === null || project === null ? [] : await deps.browse.listSessionSummaries({ projects: [project], sinceMs: end });
  const target = chooseTargetSession(stored, candidates);
  if (target === null) {
    const since = end === null ? '' : ` after it ended (${new Date(end).toISOString()})`;
    const where = stored.cwd ?? stored.project;
    throw new MoonError('not_found', `no session to continue ${sourceId} in: none${where ? ` in ${where}` : ''} started${since}`, { hint });
  }
  return target;
}

async function readDecisions(archiveRefs: readonly string[], browse: BrowsePort | null, stored: StoredSession | null): Promise<string[]> {
  const projection = findProjectionRef(archiveRefs);
  if (projection) {
    let text: string;
    try {
      text = readFileSync(projection, 'utf8');
    } catch (error) {
      throw toIoError(projection, error, 'read');
    }
    const decisions = readProjectionDecisions(text);
    if (decisions) return decisions;
  }
  return browse && stored ? extractDecisions(await browse.listEntries(stored.id)) : [];
}
