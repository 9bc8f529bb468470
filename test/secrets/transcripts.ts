/** Minimal Codex and OpenClaw writers for the secrets suite (Claude Code uses test/helpers/transcripts.ts). */

export interface PlantedTurn {
  user: string;
  command: string;
  result: string;
  toolName?: string;
}

interface SessionFields {
  id: string;
  cwd: string;
  branch?: string;
  start: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function codexSession(fields: SessionFields, turns: PlantedTurn[]): string {
  const lines: unknown[] = [];
  let at = fields.start;
  const record = (type: string, payload: unknown) => lines.push({ timestamp: iso((at += 1000)), type, payload });
  record('session_meta', {
    id: fields.id,
    timestamp: iso(fields.start),
    cwd: fields.cwd,
    originator: 'codex_cli_rs',
    cli_version: '0.50.0',
    source: 'cli',
    git: fields.branch ? { branch: fields.branch, commit_hash: null } : undefined,
  });
  turns.forEach((turn, index) => {
    record('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: turn.user }] });
    const callId = `call-${index + 1}`;
    record('response_item', {
      type: 'function_call',
      name: turn.toolName ?? 'exec_command',
      arguments: JSON.stringify({ cmd: turn.command }),
      call_id: callId,
    });
    record('response_item', { type: 'function_call_output', call_id: callId, output: turn.result });
  });
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}

export function openclawSession(fields: SessionFields, turns: PlantedTurn[]): string {
  const lines: unknown[] = [{ type: 'session', version: 3, id: fields.id, timestamp: iso(fields.start), cwd: fields.cwd }];
  let at = fields.start;
  let parent: string | null = null;
  const message = (id: string, body: unknown) => {
    lines.push({ type: 'message', id, parentId: parent, timestamp: iso((at += 1000)), message: body });
    parent = id;
  };
  turns.forEach((turn, index) => {
    const n = index + 1;
    message(`u${n}`, { role: 'user', content: [{ type: 'text', text: turn.user }], timestamp: at });
    const name = turn.toolName ?? 'bash';
    message(`a${n}`, {
      role: 'assistant',
      provider: 'acme',
      model: 'alpha',
      content: [{ type: 'toolCall', id: `call-${n}`, name, arguments: { command: turn.command } }],
    });
    message(`r${n}`, { role: 'toolResult', toolCallId: `call-${n}`, toolName: name, isError: false, content: [{ type: 'text', text: turn.result }] });
  });
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}
