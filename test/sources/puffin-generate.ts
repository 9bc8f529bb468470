import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * A synthetic Puffin history of the real schema (SOURCES.md, "Puffin"), written as Puffin writes it
 * (`JSON.stringify(history, null, 2)`) but piece by piece, so a file of any size is made without holding it:
 * branches of threads with forks, null responses, ISO-stamped CLI prompts, dangling parents, files modified, and
 * text full of what a JSON reader must get right (escapes, braces and quotes in strings, non-ASCII).
 */
export function writeGeneratedHistory(path: string, options: { targetBytes: number; branches?: number }): { prompts: number; bytes: number } {
  const fd = openSync(path, 'w');
  let bytes = 0;
  const write = (text: string): void => {
    bytes += writeSync(fd, text);
  };
  const branchCount = options.branches ?? 6;
  const perBranch = options.targetBytes / branchCount;
  let prompts = 0;
  try {
    write('{\n  "branches": {');
    for (let branch = 0; branch < branchCount; branch += 1) {
      const id = branch === 0 ? '__proto__' : `branch-${branch}`;
      write(`${branch === 0 ? '' : ','}\n    ${JSON.stringify(id)}: {\n      "id": ${JSON.stringify(id)},\n      "name": "Branch ${branch} — «tests»",\n      "prompts": [`);
      const start = bytes;
      let index = 0;
      while (bytes - start < perBranch) {
        const prompt = makePrompt(branch, index);
        write(`${index === 0 ? '' : ','}\n${indent(JSON.stringify(prompt, null, 2), 8)}`);
        index += 1;
        prompts += 1;
      }
      write('\n      ]\n    }');
    }
    write('\n  },\n  "activeBranch": "branch-1",\n  "activePromptId": null,\n  "branchOrder": ["branch-2", "branch-1"],\n  "updatedAt": "2026-01-19T10:00:00.000Z"\n}');
  } finally {
    closeSync(fd);
  }
  return { prompts, bytes };
}

function indent(text: string, spaces: number): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((line) => pad + line)
    .join('\n');
}

/** Threads of five: a root, a fork of two replies, and a reply to each; every 50th a CLI-synced prompt. */
function makePrompt(branch: number, index: number): Record<string, unknown> {
  const id = `b${branch}-p${index}`;
  const inThread = index % 5;
  const root = index - inThread;
  const parentId = inThread === 0 ? (index % 97 === 0 ? `gone-${index}` : null) : inThread <= 2 ? `b${branch}-p${root}` : `b${branch}-p${root + inThread - 2}`;
  const children = inThread === 0 ? [`b${branch}-p${root + 1}`, `b${branch}-p${root + 2}`] : inThread <= 2 ? [`b${branch}-p${root + inThread + 2}`] : [];
  const timestamp = 1_765_000_000_000 + branch * 10_000_000 + index * 1000;
  const content = `Prompt ${index} of branch ${branch}: fix the "parser" in src/p${index % 13}.ts {braces} [brackets] \\ back\\slash, tab\there,\nnew line, café ☕ 𝄞, \u0001 control. ${'words '.repeat(40 + (index % 30))}`;
  if (index % 50 === 49) {
    return { id: ((branch + 1) * 1e9 + index * 7919).toString(16).padStart(16, '0'), content, timestamp: new Date(timestamp).toISOString(), response: { content: `Synced answer ${index}`, timestamp: new Date(timestamp + 500).toISOString() }, metadata: { source: 'claude-code-cli', syncedAt: new Date(timestamp).toISOString(), files: [] } };
  }
  const response =
    index % 17 === 0
      ? null
      : {
          content: `Answer ${index}: done. ${'reply text '.repeat(30 + (index % 20))}`,
          sessionId: `s-${index}`,
          cost: 0.0123,
          turns: 3,
          duration: 4567,
          filesModified: index % 3 === 0 ? [{ path: `/repo/src/p${index % 13}.ts`, action: 'write', timestamp }] : [],
          timestamp: timestamp + 900,
        };
  return { id, parentId, content, title: inThread === 0 ? `Thread ${index}` : null, timestamp, response, ...(inThread === 4 ? {} : { children }) };
}
