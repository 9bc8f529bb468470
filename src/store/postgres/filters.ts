import type { SearchFilters } from '../types.js';
import { renderTermsQuery } from './lexical.js';

/** Numbered parameters for one statement: `add` returns `$n` for a value. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

export interface RenderedFilters {
  where: string[];
  /** The clauses reference the sessions table (alias s). */
  needsSessions: boolean;
}

/**
 * SQL for every filter, applied inside the query that ranks — so a filter narrows candidates before the top-k
 * is taken, never after. The same rules as the SQLite engine's filters.ts, in PostgreSQL's words. Entries are
 * aliased `e`, sessions `s`.
 */
export function renderFilters(filters: SearchFilters, params: Params, terms: { all?: string[]; none?: string[] } = {}): RenderedFilters {
  const where: string[] = [];
  const inList = (column: string, values: readonly string[] | undefined, negate = false): void => {
    if (!values || values.length === 0) return;
    where.push(`${negate ? 'NOT ' : ''}(${column} = ANY (${params.add([...values])}::text[]))`);
  };
  inList('e.session_id', filters.sessionIds);
  inList('e.session_id', filters.excludeSessionIds, true);
  inList('e.role', filters.roles);
  inList('e.priority', filters.priorities);
  if (filters.tools && filters.tools.length > 0) {
    where.push(`lower(e.tool_name) = ANY (${params.add(filters.tools.map((tool) => tool.toLowerCase()))}::text[])`);
  }
  if (filters.excludeRowids && filters.excludeRowids.length > 0) {
    where.push(`NOT (e.rowid = ANY (${params.add(filters.excludeRowids)}::bigint[]))`);
  }
  if (filters.markerTypes && filters.markerTypes.length > 0) {
    where.push(`e.rowid IN (SELECT mk.entry_rowid FROM moon.markers mk WHERE mk.type = ANY (${params.add([...filters.markerTypes])}::text[]))`);
  }
  inList('s.source', filters.sources);
  if (filters.projects && filters.projects.length > 0) {
    // A name matches the project exactly (case-insensitive); a value with a slash matches part of the cwd.
    where.push(
      `(${filters.projects
        .map((project) =>
          project.includes('/') ? `s.cwd LIKE ${params.add(`%${escapeLike(project)}%`)}` : `lower(s.project) = lower(${params.add(project)})`,
        )
        .join(' OR ')})`,
    );
  }
  if (filters.sinceMs !== undefined) where.push(`e.ts >= ${params.add(filters.sinceMs)}`);
  if (filters.untilMs !== undefined) where.push(`e.ts < ${params.add(filters.untilMs)}`);
  const windows = filters.windows ?? [];
  const daily = filters.daily ?? [];
  if (windows.length > 0 || daily.length > 0) {
    const bounds = [...windows, ...daily];
    where.push(
      `e.ts >= ${params.add(bounds.reduce((min, w) => Math.min(min, w.startMs), Infinity))} AND e.ts < ${params.add(
        bounds.reduce((max, w) => Math.max(max, w.endMs), -Infinity),
      )}`,
    );
    const union: string[] = [];
    if (windows.length === 1 && daily.length === 0) {
      // The outer bounds are this window.
    } else if (windows.length > 0) {
      union.push(
        `EXISTS (SELECT 1 FROM unnest(${params.add(windows.map((w) => w.startMs))}::bigint[], ${params.add(
          windows.map((w) => w.endMs),
        )}::bigint[]) AS w(lo, hi) WHERE e.ts >= w.lo AND e.ts < w.hi)`,
      );
    }
    for (const span of daily) {
      const wraps = span.fromMs > span.toMs;
      const offset = params.add(span.offsetMs);
      union.push(
        `(e.ts >= ${params.add(span.startMs)} AND e.ts < ${params.add(span.endMs)} AND ((e.ts + ${offset}) % 86400000 >= ${params.add(
          span.fromMs,
        )} ${wraps ? 'OR' : 'AND'} (e.ts + ${offset}) % 86400000 < ${params.add(span.toMs)}))`,
      );
    }
    if (union.length > 0) where.push(`(${union.join(' OR ')})`);
  }
  const relative = filters.sessionRelative;
  if (relative) {
    where.push('e.ts IS NOT NULL AND s.start_ms IS NOT NULL');
    if (relative.fromMs !== undefined) where.push(`e.ts - s.start_ms >= ${params.add(relative.fromMs)}`);
    if (relative.toMs !== undefined) where.push(`e.ts - s.start_ms < ${params.add(relative.toMs)}`);
    if (relative.fromFraction !== undefined) where.push(`e.ts - s.start_ms >= ${params.add(relative.fromFraction)}::float8 * (s.end_ms - s.start_ms)`);
    if (relative.toFraction !== undefined) where.push(`e.ts - s.start_ms <= ${params.add(relative.toFraction)}::float8 * (s.end_ms - s.start_ms)`);
  }
  const required = renderTermsQuery(terms.all ?? [], '&');
  if (required) where.push(`e.tv @@ ${params.add(required)}::tsquery`);
  const excluded = renderTermsQuery(terms.none ?? [], '|');
  if (excluded) where.push(`NOT (e.tv @@ ${params.add(excluded)}::tsquery)`);
  return { where, needsSessions: where.some((clause) => clause.includes('s.')) };
}

export function joinSessions(filters: RenderedFilters): string {
  return filters.needsSessions ? 'JOIN moon.sessions s ON s.id = e.session_id' : '';
}

export function andClauses(filters: RenderedFilters): string {
  return filters.where.map((clause) => `AND ${clause}`).join(' ');
}

export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (char) => `\\${char}`);
}
