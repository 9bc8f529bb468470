import { describe, expect, test } from 'vitest';
import { cleanText } from '../../src/normalize/clean.js';

const ESC = '\x1b';

describe('cleanText', () => {
  test('runs the JSON unescape pre-pass first', () => {
    expect(cleanText('{\\\\"ok\\\\": true}\\\\nnext')).toBe('{"ok": true}\nnext');
  });

  test('strips ANSI colour, cursor and hyperlink sequences', () => {
    const coloured = `${ESC}[1;31merror${ESC}[0m: ${ESC}[2Kfailed ${ESC}]8;;https://example.com${ESC}\\link${ESC}]8;;${ESC}\\`;
    expect(cleanText(coloured)).toBe('error: failed link');
    expect(cleanText(`${ESC}[?25lhidden cursor${ESC}[?25h`)).toBe('hidden cursor');
  });

  test('removes control characters but keeps newlines and tabs', () => {
    expect(cleanText('a\x00b\x07c\x08d\te\nf\x7f')).toBe('abcd\te\nf');
    expect(cleanText('\ufeffbom first')).toBe('bom first');
  });

  test('normalises CRLF and lone CR to LF', () => {
    expect(cleanText('one\r\ntwo\rthree')).toBe('one\ntwo\nthree');
  });

  test('drops <system-reminder> blocks entirely', () => {
    const text = 'file contents\n\n<system-reminder>\nWhenever you read a file, consider whether it is malicious.\n</system-reminder>\nmore';
    expect(cleanText(text)).toBe('file contents\n\nmore');
    expect(cleanText('<system-reminder>x</system-reminder>')).toBe('');
  });

  test('leaves an unterminated <system-reminder> alone rather than guessing where it ends', () => {
    expect(cleanText('before <system-reminder> after')).toBe('before <system-reminder> after');
  });

  test('unwraps <local-command-stdout> and keeps its text', () => {
    expect(cleanText('<local-command-stdout>See ya!</local-command-stdout>')).toBe('See ya!');
    expect(cleanText('<local-command-stderr>boom</local-command-stderr>')).toBe('boom');
  });

  test('removes OpenClaw untrusted-metadata blocks and keeps the message', () => {
    const text = [
      'Conversation info (untrusted metadata):',
      '```json',
      '{',
      '  "message_id": "10285",',
      '  "sender": "1801759510"',
      '}',
      '```',
      '',
      'Sender (untrusted metadata):',
      '```json',
      '{ "label": "openclaw-control-ui" }',
      '```',
      '',
      '[Sun 2026-04-19 00:33 GMT+8] what about the retry loop?',
    ].join('\n');
    expect(cleanText(text)).toBe('[Sun 2026-04-19 00:33 GMT+8] what about the retry loop?');
  });

  test('removes an untrusted-metadata label that follows a timestamp prefix', () => {
    const text = '[Wed 2026-03-11 23:51 PDT] Conversation info (untrusted metadata):\n```json\n{"chat_type":"direct"}\n```\n\nactual user question';
    expect(cleanText(text)).toBe('actual user question');
  });

  test('keeps context blocks labelled "(untrusted, for context)" and prose mentioning the phrase', () => {
    const context = 'Thread starter (untrusted, for context):\n```json\n{"body":"hi"}\n```\n\nreply here';
    expect(cleanText(context)).toBe(context);
    expect(cleanText('he said (untrusted metadata): and left')).toBe('he said (untrusted metadata): and left');
  });

  test('trims trailing whitespace per line, collapses blank runs and trims the whole text', () => {
    expect(cleanText('  \n\na   \nb\t\n\n\n\n\nc  \n\n')).toBe('a\nb\n\nc');
  });

  test('is deterministic and idempotent', () => {
    const text = `${ESC}[32mok${ESC}[0m\r\n<system-reminder>x</system-reminder>\n\n\n\ndone  `;
    const once = cleanText(text);
    expect(cleanText(text)).toBe(once);
    expect(cleanText(once)).toBe(once);
  });

  test('stays linear on hostile 1 MB inputs', () => {
    const inputs = [
      `a${' '.repeat(1_000_000)}b`,
      '<system-reminder>'.repeat(60_000),
      'X (untrusted metadata):\n```json\n'.repeat(30_000),
      `${ESC}]`.repeat(400_000),
    ];
    for (const input of inputs) {
      const started = performance.now();
      cleanText(input);
      expect(performance.now() - started).toBeLessThan(2000);
    }
  });
});

describe('Claude Code slash-command wrappers', () => {
  test('keep the command and its arguments, not the markup', () => {
    expect(cleanText('<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>')).toBe('/clear');
    expect(cleanText('<command-name>/review</command-name>\n<command-message>review</command-message>\n<command-args>src/app.ts</command-args>')).toBe('/review\n\nsrc/app.ts');
  });
});

describe('Claude Code command and shell markup', () => {
  test('a command name glued to its arguments stays two words', () => {
    expect(cleanText('<command-name>test-command</command-name><command-args>--verbose</command-args>')).toBe('test-command --verbose');
  });

  test('<command-contents> keeps the command body, unwrapping a JSON {"text"} envelope', () => {
    const raw =
      '<command-name>test-command</command-name><command-args>--verbose</command-args><command-message>Running</command-message>' +
      '<command-contents>{"text": "Use \\"quotes\\" and \\nline breaks\\n"}</command-contents>';
    expect(cleanText(raw)).toBe('test-command --verbose\nUse "quotes" and\nline breaks');
    expect(cleanText('<command-contents>Review the diff in src/</command-contents>')).toBe('Review the diff in src/');
  });

  test('what the user ran with ! and its output are kept, the tags are not', () => {
    expect(cleanText('<bash-input>git status</bash-input>')).toBe('git status');
    expect(cleanText('<bash-stdout>On branch main</bash-stdout><bash-stderr></bash-stderr>')).toBe('On branch main');
  });

  test('the local-command caveat is boilerplate and goes', () => {
    const caveat = '<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>';
    expect(cleanText(caveat)).toBe('');
    expect(cleanText(`${caveat}\n<local-command-stdout>See ya!</local-command-stdout>`)).toBe('See ya!');
  });

  test('an unclosed <command-contents> loses its tag; its body is kept as written', () => {
    expect(cleanText('<command-contents>{"text": "x"')).toBe('{"text": "x"');
  });
});
