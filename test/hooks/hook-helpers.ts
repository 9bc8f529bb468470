import { spawn } from 'node:child_process';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { BIN } from '../helpers/cli.js';

export interface HookRun {
  code: number;
  stdout: string;
  stderr: string;
  /** Wall time of the process, spawn to exit. */
  ms: number;
}

/** Run the built CLI as an agent runs a hook: `node bin/moon.js <args>`, the payload written to stdin and closed. */
export function runHookProcess(args: string[], stdin: string | null, env: Record<string, string | undefined>): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], {
      // No hook server unless the test asks for one (hook-server.test.ts): one per test home would outlive it.
      env: { PATH: process.env.PATH, MOON_RESIDENTIAL_TIMEZONE: 'UTC', MOON_HOOKS_SERVER: 'off', ...env },
      stdio: [stdin === null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, ms: performance.now() - started }));
    if (stdin !== null) {
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(stdin);
    }
  });
}

/** The same count the hooks use (src/text/tokens.ts): cl100k_base, special-token text counted as text. */
export function countHookTokens(text: string): number {
  return countTokens(text, { allowedSpecial: new Set(), disallowedSpecial: new Set() });
}

/** The additionalContext of a hook's stdout, checking the exact shape both clients read. */
export function readAdditionalContext(stdout: string, hookEventName: string): string {
  const lines = stdout.split('\n').filter((line) => line !== '');
  if (lines.length !== 1) throw new Error(`expected one line on stdout, got ${lines.length}: ${stdout.slice(0, 200)}`);
  const parsed = JSON.parse(lines[0]!) as { hookSpecificOutput?: { hookEventName?: unknown; additionalContext?: unknown } };
  if (Object.keys(parsed).join() !== 'hookSpecificOutput') throw new Error(`unexpected keys: ${Object.keys(parsed).join()}`);
  const output = parsed.hookSpecificOutput!;
  if (Object.keys(output).join() !== 'hookEventName,additionalContext') throw new Error(`unexpected hookSpecificOutput keys: ${Object.keys(output).join()}`);
  if (output.hookEventName !== hookEventName) throw new Error(`hookEventName ${String(output.hookEventName)}`);
  if (typeof output.additionalContext !== 'string') throw new Error('additionalContext is not a string');
  return output.additionalContext;
}

/** Payloads as Claude Code writes them (code.claude.com hooks reference): common fields plus the event's own. */
export const claudePayload = {
  sessionStart: (fields: { session_id: string; transcript_path: string; cwd: string; source: string }) =>
    JSON.stringify({ ...fields, hook_event_name: 'SessionStart', permission_mode: 'default', model: 'claude-sonnet-4-5-20250929' }),
  stop: (fields: { session_id: string; transcript_path: string; cwd: string }) =>
    JSON.stringify({ ...fields, hook_event_name: 'Stop', permission_mode: 'default', stop_hook_active: false, last_assistant_message: 'Done.' }),
  preCompact: (fields: { session_id: string; transcript_path: string; cwd: string; trigger: 'manual' | 'auto' }) =>
    JSON.stringify({ ...fields, hook_event_name: 'PreCompact', custom_instructions: '' }),
  sessionEnd: (fields: { session_id: string; transcript_path: string; cwd: string; reason: string }) =>
    JSON.stringify({ ...fields, hook_event_name: 'SessionEnd', permission_mode: 'default' }),
  userPromptSubmit: (fields: { session_id: string; transcript_path: string; cwd: string; prompt: string }) =>
    JSON.stringify({ ...fields, hook_event_name: 'UserPromptSubmit', permission_mode: 'default' }),
};

/** Payloads as Codex writes them (codex-rs/hooks/schema/generated/*.command.input.schema.json); transcript_path may be null. */
export const codexPayload = {
  sessionStart: (fields: { session_id: string; transcript_path: string | null; cwd: string; source: 'startup' | 'resume' | 'clear' }) =>
    JSON.stringify({ ...fields, hook_event_name: 'SessionStart', model: 'gpt-5.3-codex', permission_mode: 'default' }),
  stop: (fields: { session_id: string; transcript_path: string | null; cwd: string }) =>
    JSON.stringify({
      ...fields,
      hook_event_name: 'Stop',
      model: 'gpt-5.3-codex',
      permission_mode: 'default',
      turn_id: 'turn-7',
      stop_hook_active: false,
      last_assistant_message: null,
    }),
  preCompact: (fields: { session_id: string; transcript_path: string | null; cwd: string; trigger: 'manual' | 'auto' }) =>
    JSON.stringify({ ...fields, hook_event_name: 'PreCompact', model: 'gpt-5.3-codex', turn_id: 'turn-9' }),
};

/** A Codex rollout (session_meta, turn_context, then user and assistant messages), as Codex writes one. */
export function codexRollout(options: { sessionId: string; cwd: string; turns: { role: 'user' | 'assistant'; text: string; at: string }[] }): string {
  const first = options.turns[0]!.at;
  const lines: unknown[] = [
    { timestamp: first, type: 'session_meta', payload: { id: options.sessionId, timestamp: first, cwd: options.cwd, originator: 'codex_cli_rs', cli_version: '0.104.0', source: 'cli', model_provider: 'openai' } },
    { timestamp: first, type: 'turn_context', payload: { cwd: options.cwd, approval_policy: 'on-request', sandbox_policy: { mode: 'workspace-write' }, model: 'gpt-5.3-codex', effort: 'medium' } },
  ];
  for (const turn of options.turns) {
    lines.push({
      timestamp: turn.at,
      type: 'response_item',
      payload: { type: 'message', role: turn.role, content: [{ type: turn.role === 'user' ? 'input_text' : 'output_text', text: turn.text }] },
    });
  }
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}
