import { MoonError } from '../errors.js';
import type { RecallResult } from '../model.js';
import type { Redactor } from '../normalize/redact.js';
import type { IndexReport } from '../ingest/report.js';
import type { RecallOptions } from '../search/options.js';
import type { BrowsePort } from '../store/ports.js';
import { HOOK_EVENT_NAMES, HOOK_EVENTS, type HookEvent, isHookEvent } from './events.js';
import { locateTranscript } from './locate.js';
import { parseHookPayload } from './payload.js';
import type { SessionStartDeps } from './session-start.js';

/**
 * `moon hook <event>` behind the Moon facade: parse the payload, do the event's work, and say what to print.
 * session-start and user-prompt-submit hand the agent context (`stdout`: the one JSON line Claude Code and Codex
 * both read, `{"hookSpecificOutput":{"hookEventName":…,"additionalContext":…}}`); pre-compact captures the
 * transcript (snapshot + index) at once, before the agent compacts; stop (after every turn) and session-end only
 * name the transcript for the caller to capture in a detached process, so the agent waits for neither (Claude
 * Code kills SessionEnd hooks after 1.5 s; Codex has no asynchronous hooks). Every run is counted in
 * state/hooks.json. Errors are thrown: failing open (exit 0, one line on stderr) is the interface's job.
 */
export interface HookRequest {
  /** `session-start`, `stop`, `pre-compact`, `session-end` or `user-prompt-submit`. */
  event: string;
  /** The hook's stdin, as read. */
  input: string;
}

export interface HookOutcome {
  event: HookEvent;
  /** The one line to print on stdout, or null: print nothing. */
  stdout: string | null;
  /** Tokens of the context handed to the agent (cl100k_base, estimated from above: token-estimate.ts); 0 when none. */
  tokens: number;
  /** A transcript to capture in a detached process: always for stop and session-end, and for pre-compact when
   * another moon process held the index longer than a hook may wait. */
  detach: string | null;
  /** What was done, in a few words (for logs and tests). */
  summary: string;
  /** A problem that did not stop the hook (its run could not be counted). */
  warning: string | null;
}

export interface HookDeps {
  home: string;
  memoryFile: string;
  /** Whether session-start adds the project's Beads work in progress (memory.enabled and memory.planning = beads). */
  planning?: boolean;
  zone: string;
  homeDir: string;
  clock: () => number;
  hooks: { session_start_budget_tokens: number; user_prompt_recall: boolean; user_prompt_budget_tokens: number };
  /** The index for reading, opened with a short lock timeout. Rejects when there is no index. */
  browse: () => Promise<BrowsePort>;
  /** Recall without vectors (a hook never loads an embedding model). */
  recall: (options: RecallOptions) => Promise<RecallResult>;
  /** Snapshot and index one transcript, waiting at most a hook's share for another writer. */
  capture: (path: string) => Promise<IndexReport>;
  redact: () => Promise<Redactor>;
  roots: () => string[];
  projectionPathFor: (sessionId: string) => string;
  /** The context pack for the project (memory.enabled): session-start adds its memory-plane items. */
  pack?: SessionStartDeps['pack'];
}

export async function runHook(deps: HookDeps, request: HookRequest): Promise<HookOutcome> {
  const event = request.event;
  if (!isHookEvent(event)) {
    throw new MoonError('bad_usage', `unknown hook event "${event}"`, { hint: `one of ${HOOK_EVENTS.join(', ')}` });
  }
  const payload = parseHookPayload(request.input, event);
  let outcome: Omit<HookOutcome, 'event' | 'warning'>;
  switch (event) {
    case 'session-start': {
      const budget = deps.hooks.session_start_budget_tokens;
      if (payload.cwd === null) throw new MoonError('bad_input', 'the SessionStart payload has no "cwd": no project to describe');
      if (budget === 0) {
        outcome = nothing('hooks.session_start_budget_tokens = 0');
        break;
      }
      // Each event loads its own modules: a stop never pays for session-start's.
      const [browse, redact, counter, { buildSessionStartContext }] = await Promise.all([
        deps.browse(),
        deps.redact(),
        import('./token-estimate.js').then((module) => module.estimatingCounter),
        import('./session-start.js'),
      ]);
      const context = await buildSessionStartContext(
        {
          browse,
          memoryFile: deps.memoryFile,
          zone: deps.zone,
          redact,
          counter,
          homeDir: deps.homeDir,
          projectionPathFor: deps.projectionPathFor,
          planning: deps.planning ?? false,
          pack: deps.pack,
        },
        { cwd: payload.cwd, sessionId: payload.sessionId, source: payload.source, budget },
      );
      outcome = context
        ? { stdout: additionalContext(event, context.text), tokens: context.tokens, detach: null, summary: `${context.sessions} sessions, ${context.tokens} tokens` }
        : nothing(`nothing known about ${payload.cwd}`);
      break;
    }
    case 'user-prompt-submit': {
      if (!deps.hooks.user_prompt_recall) {
        outcome = nothing('hooks.user_prompt_recall is off');
        break;
      }
      if (payload.prompt === null) throw new MoonError('bad_input', 'the UserPromptSubmit payload has no "prompt"');
      // The rank table loads beside the recall when a core is free.
      const [browse, redact, { estimatingCounter: counter }, { buildPromptRecall }] = await Promise.all([
        deps.browse(),
        deps.redact(),
        import('./token-estimate.js'),
        import('./user-prompt.js'),
      ]);
      const recalled = await buildPromptRecall(
        { browse, recall: deps.recall, zone: deps.zone, redact, counter, homeDir: deps.homeDir },
        { prompt: payload.prompt, cwd: payload.cwd, sessionId: payload.sessionId, budget: deps.hooks.user_prompt_budget_tokens },
      );
      outcome = recalled
        ? { stdout: additionalContext(event, recalled.text), tokens: recalled.tokens, detach: null, summary: `${recalled.tokens} tokens` }
        : nothing('no earlier session mentions the prompt');
      break;
    }
    case 'stop':
    case 'session-end': {
      const path = locateTranscript(payload.transcriptPath, payload.sessionId, deps.roots());
      outcome = { stdout: null, tokens: 0, detach: path, summary: `capturing ${path} in the background` };
      break;
    }
    case 'pre-compact': {
      const path = locateTranscript(payload.transcriptPath, payload.sessionId, deps.roots());
      outcome = await captureNow(deps, path);
      break;
    }
  }
  const warning = await countRun(deps, event, outcome.tokens);
  return { event, ...outcome, warning };
}

/** Capture inline; when another process holds the index past the hook's wait, hand it to a detached process. */
async function captureNow(deps: HookDeps, path: string): Promise<Omit<HookOutcome, 'event' | 'warning'>> {
  let report: IndexReport;
  try {
    report = await deps.capture(path);
  } catch (error) {
    if (isLockTimeout(error)) return { stdout: null, tokens: 0, detach: path, summary: `index busy: capturing ${path} in the background` };
    throw error;
  }
  if (report.fatal) {
    if (report.fatal.code === 'store' && /is locked/.test(report.fatal.message)) {
      return { stdout: null, tokens: 0, detach: path, summary: `index busy: capturing ${path} in the background` };
    }
    throw new MoonError('store', report.fatal.message, report.fatal.hint ? { hint: report.fatal.hint } : {});
  }
  const failed = report.errors[0] ?? report.knownFailures[0];
  if (failed) throw new MoonError('bad_input', failed.reason);
  return { stdout: null, tokens: 0, detach: null, summary: `${report.entries} entries indexed from ${path}` };
}

/** Another moon process held the index's write lock past the wait (src/store/sqlite/write-lock.ts). */
export function isLockTimeout(error: unknown): boolean {
  return error instanceof MoonError && error.code === 'store' && /is locked/.test(error.message);
}

/** The JSON line both Claude Code and Codex read from a SessionStart or UserPromptSubmit hook's stdout. */
export function additionalContext(event: HookEvent, text: string): string {
  return JSON.stringify({ hookSpecificOutput: { hookEventName: HOOK_EVENT_NAMES[event], additionalContext: text } });
}

function nothing(summary: string): Omit<HookOutcome, 'event' | 'warning'> {
  return { stdout: null, tokens: 0, detach: null, summary };
}

/** Count the run in state/hooks.json; a failure to count is a warning, never the hook's failure. */
export async function countRun(deps: Pick<HookDeps, 'home' | 'zone' | 'clock'>, event: HookEvent, tokens: number): Promise<string | null> {
  try {
    const nowMs = deps.clock();
    const [{ recordHookRun }, { formatResidentialDay }] = await Promise.all([import('./usage-state.js'), import('../time/residential.js')]);
    const recorded = await recordHookRun(deps.home, { event, day: formatResidentialDay(nowMs, deps.zone), nowMs, tokens });
    return recorded ? null : 'state/hooks.json is locked by another hook: this run was not counted';
  } catch (error) {
    return `this run was not counted: ${(error as Error).message}`;
  }
}

/** Record a hook failure the caller failed open on (moon status shows the last one). Never throws. */
export async function recordHookFailure(deps: Pick<HookDeps, 'home' | 'zone' | 'clock'>, event: string, message: string): Promise<void> {
  try {
    const nowMs = deps.clock();
    const [{ recordHookRun }, { formatResidentialDay }] = await Promise.all([import('./usage-state.js'), import('../time/residential.js')]);
    await recordHookRun(deps.home, { event, day: formatResidentialDay(nowMs, deps.zone), nowMs, failure: message });
  } catch {
    // The failure itself is already on stderr.
  }
}
