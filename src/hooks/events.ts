/**
 * The agent hooks moon answers (`moon hook <event>`): the names installers register, and the event name each
 * client writes in its payload and expects back in `hookSpecificOutput.hookEventName`. Claude Code and Codex
 * spell the events the same way.
 */
export const HOOK_EVENTS = ['session-start', 'stop', 'pre-compact', 'session-end', 'user-prompt-submit'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

export const HOOK_EVENT_NAMES: Record<HookEvent, string> = {
  'session-start': 'SessionStart',
  stop: 'Stop',
  'pre-compact': 'PreCompact',
  'session-end': 'SessionEnd',
  'user-prompt-submit': 'UserPromptSubmit',
};

/** Events that capture the transcript (snapshot + index); the others hand the agent context. */
export const CAPTURE_EVENTS: readonly HookEvent[] = ['stop', 'pre-compact', 'session-end'];

export function isHookEvent(value: string): value is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(value);
}
