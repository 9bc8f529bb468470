/** The public library API. CLI, MCP and HTTP call these and nothing deeper. */
export { createMoon } from './moon.js';
export type { AgentsPlane, DoctorRequest, HistoryPlane, IndexRequest, InstallRequest, MemoryPlane, Moon, MoonHooks, SafeText, ServiceRequest, StatusReport, UpkeepPlane, UsageRequest } from './moon.js';
export { diagnose } from './moon.js';
export type { VerifyProblem, VerifyReport } from './maintain/verify.js';
export type { RebuildReport } from './maintain/rebuild.js';
export type { ForgetReport, ForgetRequest } from './maintain/forget.js';
export type { DecisionsRequest, DecisionsResult, FixesRequest, FixesResult } from './fixes/query.js';
export type { DecisionRecord } from './fixes/decisions.js';
export type { MarkerRecord, MarkerScopeRecord, MarkersRequest, MarkersResult } from './browse/markers.js';
export { toMarkerRecord, toMarkerScopeRecord } from './browse/markers.js';
export type { MarkerField, StoredMarker } from './markers/types.js';
export { type Wire, toWireKeys } from './records/wire.js';
export { lowerPriority } from './runtime/priority.js';
export { markForeground } from './runtime/foreground.js';
export type { EvidenceState, FixEvidence, FixPattern, PatternState } from './records/fixes.js';
export { extractErrorSignatures, normalizeErrorSignature } from './fixes/signature.js';
export type { Namespace, RecordEnvelope, RecordKind, RunRef, SecurityScope, TrustClass } from './records/envelope.js';
export { corruptIndexError, isCorruptionError } from './moon.js';
export type { SessionListItem, SessionListing, SessionsRequest } from './browse/sessions.js';
export type { SessionNotFound, SessionShown, ShowRequest, ShowResult, ShownEntry, ShownSession } from './browse/show.js';
export { loadConfig } from './config.js';
export type { MoonConfig } from './config.js';
export { MoonError } from './errors.js';
export type { MoonErrorCode } from './errors.js';
export type * from './model.js';
export type { RecallOptions, RecallGroup } from './search/options.js';
export { type FatalError, type IndexReport, describeFatal, emptyReport } from './ingest/report.js';
export type { Explanation } from './search/fusion.js';
export { validateGroup, validateRole, validateSource, validateStrategy } from './search/options.js';
export { SOURCE_NAMES } from './sources/index.js';
export {
  RECALL_REQUEST_FIELDS,
  RECALL_REQUEST_FIELD_NAMES,
  RecallRequestSchema,
  canonicalFieldName,
  parseRecallRequest,
  parseRecallRequestLine,
  toRecallOptions,
} from './search/request.js';
export type { RecallRequest, RecallRequestField } from './search/request.js';
export { isValidTimezone } from './time/zone.js';
export { abbreviateZone, formatLocalIso } from './time/format.js';
export { DEFAULT_CONTEXT } from './browse/show.js';
export { describeSessionTitle } from './browse/session-title.js';
export type { TimelineEntry, TimelineFound, TimelineNotFound, TimelineRequest, TimelineResult } from './browse/timeline.js';
export { DEFAULT_TIMELINE_SPAN, MAX_TIMELINE_SPAN } from './browse/timeline.js';
export type { EntriesFound, EntriesRequest, EntriesResult } from './browse/entries.js';
export { MAX_ENTRY_IDS } from './browse/entries.js';
export type { GetSessionRequest, GetSessionResult, SessionGot, SessionSlice } from './browse/session-slice.js';
export type { ProjectScope, ScopePlace, ScopeRequest } from './search/scope.js';
export { resolveProjectScope, rootToPath, scopeRecallOptions } from './search/scope.js';
export { describeRecallScope, toRecallOutput, type RecallOutput, type RecallScopeOutput } from './search/recall-output.js';
export { HISTORY_FRAME_CLOSE, HISTORY_FRAME_OPEN, frameHistory, loadDefaultSafeText, makeSafeText } from './inject/safe-text.js';
export type { SafeTextOptions } from './inject/safe-text.js';
export { formatResidentialDay } from './time/residential.js';
export type { SnapshotReport } from './ingest/run-snapshot.js';
export type { WatchApi, WatcherStatus } from './watch/api.js';
export { STOP_EXIT_DEADLINE_MS } from './watch/api.js';
export type { CycleSummary, UsageRecord } from './watch/state.js';
export { createClock } from './time/clock.js';
export { classifyUsage, type UsageLevel, type UsageThresholds } from './usage/classify.js';
export { contextWindowFor, DEFAULT_CONTEXT_WINDOW } from './usage/context-windows.js';
export type { UsageLine, UsageReport } from './usage/list-usage.js';
export type { ContinuityRequest, ContinuityResult } from './continuity/create-continuity.js';
export type { CommandOutcome, ServiceHost } from './service/host.js';
export type { ServiceReport } from './service/run-service.js';
export { AGENTS, parseAgent, parseScope, type AgentName, type InstallScope } from './install/targets.js';
export type { AgentInstallReport, FileReport } from './install/run-install.js';
export type { InstallHost } from './install/host.js';
export type { DoctorReport } from './doctor/run-doctor.js';
export type { CheckResult, CheckStatus } from './doctor/checks.js';
export { HOOK_EVENTS, type HookEvent } from './hooks/events.js';
export type { HookOutcome, HookRequest } from './hooks/run-hook.js';
export type { HookFailure, HookUsageLine, HookUsageReport } from './hooks/usage-state.js';
export { HOOK_TOKEN_ENCODING } from './text/tokens.js';
export type { DigestListRequest, DigestOutcomeRow, DigestReport, DigestRequest, DigestScope, DigestScopeRequest, DigestSearchRequest, DigestSearchResult } from './digest/run-digest.js';
export type { DigestBody, DigestChange, DigestHit, DigestLine, DigestOutcome, RunDigest } from './records/digests.js';
export type { NamespaceChoice } from './memory/api.js';
export type { LongTermMemory } from './records/long-term.js';
export { parseAgent as parseMemoryAgent, parseExpires as parseMemoryExpires, parseScope as parseMemoryScope, parseStates as parseMemoryStates } from './memory/parse.js';
export type { ContextPack, Omission, OmissionReason, PackCandidate, PackItem, PackRecordKind, PackRequest, PackSection, PackSubsystem } from './pack/types.js';
export { PACK_SECTIONS, SubsystemUnavailable } from './pack/types.js';
export { assemblePack, SECTION_SHARES } from './pack/assemble.js';
export type { ContextPackRequest } from './pack/build.js';
export type { DocsIndexReport } from './pack/documents.js';
export { beadsWriteback, readBeads, type BdRunner, type BeadsIssue, type WritebackResult } from './pack/beads.js';
export type { DocsIndexRequest, RlmIndexReport, RlmIndexRequest, RlmQueryRequest } from './moon.js';
export type { RlmPhase } from './rlm/generator.js';
export type { HistoryQueryResult, QueryMarker, QueryPrompt, QuerySegment } from './rlm/query.js';
export { MAX_PATH_CHARS, checkPathText, checkProjectFolder, confinePath, type ConfineRequest } from './archive/confine-path.js';
export { DEFAULT_QUERY_LIMIT as RLM_DEFAULT_QUERY_LIMIT, MAX_QUERY_LIMIT as RLM_MAX_QUERY_LIMIT } from './rlm/limits.js';
export type { HistoryIndex, IncrementalStats, ProcessingStatistics } from './rlm/types.js';
export type { DocFile, DocHit, DocQuery, DocSection } from './store/types.js';
export { formatPack } from './pack/format.js';
