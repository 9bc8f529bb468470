/** The public library API. CLI, MCP and HTTP call these and nothing deeper. */
export { createMoon } from './moon.js';
export type { IndexRequest, Moon, MoonHooks, StatusReport } from './moon.js';
export type { VerifyProblem, VerifyReport } from './maintain/verify.js';
export type { RebuildReport } from './maintain/rebuild.js';
export { corruptIndexError, isCorruptionError } from './store/sqlite/guard.js';
export type { SessionListItem, SessionListing, SessionsRequest } from './browse/sessions.js';
export type { SessionNotFound, SessionShown, ShowRequest, ShowResult, ShownEntry, ShownSession } from './browse/show.js';
export { loadConfig } from './config.js';
export type { MoonConfig } from './config.js';
export { MoonError } from './errors.js';
export type { MoonErrorCode } from './errors.js';
export type * from './model.js';
export type { RecallOptions, RecallGroup } from './search/options.js';
export type { IndexReport } from './ingest/run-index.js';
export type { SnapshotReport } from './ingest/run-snapshot.js';
