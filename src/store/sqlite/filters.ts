import type { SearchFilters } from '../store.js';
import { renderFtsTerms } from './fts-query.js';

export interface RenderedFilters {
  where: string[];
  params: unknown[];
  /** The clauses reference the sessions table (alias s). */
  needsSessions: boolean;
  /**
   * The clauses keep only some sessions (by id, project or source): their rows are found from the sessions and
   * the (session_id, seq) index, without reading an entry row, so a ranked list tests its matches against that
   * set rather than reading each match's entry (search.ts readTop).
   */
  narrowsSessions: boolean;
}

/**
 * SQL for every filter, applied inside the query that ranks — so a filter narrows candidates before the top-k
 * is taken, never after. Entries are aliased `e`, sessions `s`.
 */
export function renderFilters(filters: SearchFilters, terms: { all?: string[]; none?: string[] } = {}): RenderedFilters {
  const where: string[] = [];
  const params: unknown[] = [];
  const inList = (column: string, values: readonly unknown[] | undefined, negate = false): void => {
    if (!values || values.length === 0) return;
    where.push(`${column} ${negate ? 'NOT IN' : 'IN'} (${values.map(() => '?').join(', ')})`);
    params.push(...values);
  };
  inList('e.session_id', filters.sessionIds);
  inList('e.session_id', filters.excludeSessionIds, true);
  inList('e.role', filters.roles);
  inList('e.priority', filters.priorities);
  if (filters.tools && filters.tools.length > 0) {
    where.push(`lower(e.tool_name) IN (${filters.tools.map(() => '?').join(', ')})`);
    params.push(...filters.tools.map((tool) => tool.toLowerCase()));
  }
  if (filters.excludeRowids && filters.excludeRowids.length > 0) {
    where.push(`e.rowid NOT IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(filters.excludeRowids));
  }
  if (filters.markerTypes && filters.markerTypes.length > 0) {
    // The markers table's (type, entry_rowid) index answers this without reading a marker row.
    where.push(`e.rowid IN (SELECT entry_rowid FROM markers WHERE type IN (${filters.markerTypes.map(() => '?').join(', ')}))`);
    params.push(...filters.markerTypes);
  }
  inList('s.source', filters.sources);
  if (filters.projects && filters.projects.length > 0) {
    // A name matches the project exactly (case-insensitive); a value with a slash matches part of the cwd.
    where.push(
      `(${filters.projects.map((project) => (project.includes('/') ? "s.cwd LIKE ? ESCAPE '\\'" : 's.project = ? COLLATE NOCASE')).join(' OR ')})`,
    );
    for (const project of filters.projects) {
      params.push(project.includes('/') ? `%${project.replace(/[\\%_]/g, (char) => `\\${char}`)}%` : project);
    }
  }
  if (filters.sinceMs !== undefined) {
    where.push('e.ts >= ?');
    params.push(filters.sinceMs);
  }
  if (filters.untilMs !== undefined) {
    where.push('e.ts < ?');
    params.push(filters.untilMs);
  }
  const windows = filters.windows ?? [];
  const daily = filters.daily ?? [];
  if (windows.length > 0 || daily.length > 0) {
    // The outer bounds let the ts index narrow the scan; then each entry must lie in one window or daily span.
    const bounds = [...windows, ...daily];
    where.push('e.ts >= ? AND e.ts < ?');
    params.push(bounds.reduce((min, w) => Math.min(min, w.startMs), Infinity), bounds.reduce((max, w) => Math.max(max, w.endMs), -Infinity));
    const union: string[] = [];
    if (windows.length === 1 && daily.length === 0) {
      // The outer bounds are this window.
    } else if (windows.length > 0) {
      union.push('EXISTS (SELECT 1 FROM json_each(?) w WHERE e.ts >= w.value ->> 0 AND e.ts < w.value ->> 1)');
      params.push(JSON.stringify(windows.map((window) => [window.startMs, window.endMs])));
    }
    for (const span of daily) {
      const wraps = span.fromMs > span.toMs;
      union.push(`(e.ts >= ? AND e.ts < ? AND ((e.ts + ?) % 86400000 >= ? ${wraps ? 'OR' : 'AND'} (e.ts + ?) % 86400000 < ?))`);
      params.push(span.startMs, span.endMs, span.offsetMs, span.fromMs, span.offsetMs, span.toMs);
    }
    if (union.length > 0) where.push(`(${union.join(' OR ')})`);
  }
  const relative = filters.sessionRelative;
  if (relative) {
    where.push('e.ts IS NOT NULL AND s.start_ms IS NOT NULL');
    if (relative.fromMs !== undefined) {
      where.push('e.ts - s.start_ms >= ?');
      params.push(relative.fromMs);
    }
    if (relative.toMs !== undefined) {
      where.push('e.ts - s.start_ms < ?');
      params.push(relative.toMs);
    }
    if (relative.fromFraction !== undefined) {
      where.push('e.ts - s.start_ms >= ? * (s.end_ms - s.start_ms)');
      params.push(relative.fromFraction);
    }
    if (relative.toFraction !== undefined) {
      where.push('e.ts - s.start_ms <= ? * (s.end_ms - s.start_ms)');
      params.push(relative.toFraction);
    }
  }
  const required = renderFtsTerms(terms.all ?? [], 'AND');
  if (required) {
    where.push('e.rowid IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?)');
    params.push(required);
  }
  const excluded = renderFtsTerms(terms.none ?? [], 'OR');
  if (excluded) {
    where.push('e.rowid NOT IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?)');
    params.push(excluded);
  }
  const narrowsSessions = [filters.sessionIds, filters.projects, filters.sources].some((values) => values !== undefined && values.length > 0);
  return { where, params, needsSessions: where.some((clause) => clause.includes('s.')), narrowsSessions };
}

export function joinSessions(filters: RenderedFilters): string {
  return filters.needsSessions ? 'JOIN sessions s ON s.id = e.session_id' : '';
}

export function andClauses(filters: RenderedFilters): string {
  return filters.where.map((clause) => `AND ${clause}`).join(' ');
}
