/** Builders for small, realistic transcripts written by tests (Claude Code, Codex, OpenClaw shapes). */

export interface TurnSpec {
  role: 'user' | 'assistant';
  text?: string;
  at: string;
  id?: string;
  tool?: { name: string; input: Record<string, unknown>; result: string; id?: string; /** A failed call (Claude Code's `is_error`). */ isError?: boolean };
}

export function claudeSession(options: { sessionId: string; cwd?: string; branch?: string; turns: TurnSpec[] }): string {
  const lines: string[] = [];
  let parent: string | null = null;
  options.turns.forEach((turn, index) => {
    const uuid = turn.id ?? `${options.sessionId}-u${index + 1}`;
    const base = {
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd: options.cwd ?? '/home/dev/project',
      sessionId: options.sessionId,
      version: '2.1.0',
      gitBranch: options.branch ?? 'main',
      timestamp: turn.at,
      uuid,
    };
    if (turn.role === 'user') {
      lines.push(JSON.stringify({ ...base, type: 'user', message: { role: 'user', content: turn.text ?? '' } }));
    } else {
      const content: unknown[] = [];
      if (turn.text) content.push({ type: 'text', text: turn.text });
      const toolId = turn.tool ? (turn.tool.id ?? `toolu_${options.sessionId}_${index + 1}`) : null;
      if (turn.tool) content.push({ type: 'tool_use', id: toolId, name: turn.tool.name, input: turn.tool.input });
      lines.push(
        JSON.stringify({
          ...base,
          type: 'assistant',
          requestId: `req_${uuid}`,
          message: { id: `msg_${uuid}`, type: 'message', role: 'assistant', model: 'claude-test', content },
        }),
      );
      if (turn.tool) {
        const resultUuid = `${uuid}-r`;
        lines.push(
          JSON.stringify({
            ...base,
            parentUuid: uuid,
            uuid: resultUuid,
            type: 'user',
            message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolId, content: turn.tool.result, ...(turn.tool.isError ? { is_error: true } : {}) }] },
          }),
        );
        parent = resultUuid;
        return;
      }
    }
    parent = uuid;
  });
  return `${lines.join('\n')}\n`;
}
