import { describe, expect, test } from 'vitest';
import { createRedactor } from '../../src/normalize/redact.js';
import { TOKEN_RULES } from '../../src/normalize/redact/token-rules.js';
import { ALPHABETS, buildKeptCases, buildSecretCases, createRandom } from './cases.js';

const redact = createRedactor({ enabled: true });
const SECRETS = buildSecretCases();
const random = createRandom(99);

/** Where a secret sits decides which boundary checks it meets: alone, in prose, quoted, in JSON, at a line end. */
const WRAPPERS: [string, (text: string) => string][] = [
  ['alone', (text) => text],
  ['prose', (text) => `I used ${text} yesterday`],
  ['quoted', (text) => `"${text}"`],
  ['json', (text) => JSON.stringify({ value: text, other: 1 })],
  ['line end', (text) => `first line\n${text}\nlast line`],
];

describe('every kind is redacted wherever it sits', () => {
  for (const secret of SECRETS) {
    test.each(WRAPPERS)(`${secret.name} (%s)`, (_where, wrap) => {
      const out = redact(wrap(secret.text));
      for (const body of secret.bodies) expect(out).not.toContain(body);
      if (secret.kind) expect(out).toContain(`[REDACTED:${secret.kind}]`);
    });
  }

  test('redaction is idempotent for every kind', () => {
    for (const secret of SECRETS) {
      const once = redact(`x ${secret.text} y`);
      expect(redact(once), secret.name).toBe(once);
    }
  });
});

describe('secrets in prose', () => {
  const hunter = `hunter${random(ALPHABETS.digits, 3)}`;
  const value = random(ALPHABETS.alnum, 24);
  const cases: [string, string][] = [
    [`the password is ${hunter}.`, 'the password is [REDACTED:password].'],
    [`The password for admin is ${hunter}`, 'The password for admin is [REDACTED:password]'],
    [`password was set to "${value}"`, 'password was set to "[REDACTED:password]"'],
    [`pwd: ${value}; next`, 'pwd: [REDACTED:password]; next'],
    [`passphrase ${value}`, 'passphrase [REDACTED:password]'],
    [`aws secret key: ${value}/${value}`, 'aws secret key: [REDACTED:aws-secret-key]'],
    [`my api key is ${value}`, 'my api key is [REDACTED:secret]'],
    [`Secret: \`${value}\``, 'Secret: `[REDACTED:secret]`'],
  ];
  test.each(cases)('%s', (text, expected) => {
    expect(redact(text)).toBe(expected);
  });
});

describe('look-alikes are kept', () => {
  const hex = (length: number) => random(ALPHABETS.hex, length);
  const kept = [
    ...buildKeptCases().map((item) => item.text),
    `${hex(7)} ${hex(12)} ${hex(40)}`,
    `sha256:${hex(64)} and sha512-${random(ALPHABETS.b64, 86)}==`,
    'const key = process.env.STRIPE_SECRET_KEY ?? config.apiKey;',
    'apiKeyName, tokenizer, passwordless, secretary, keyboard',
    'export OPENAI_API_KEY=${OPENAI_API_KEY:-}',
    'password: ${{ secrets.DB_PASSWORD }}',
    'reset your password; the password field; password hashing with bcrypt; forgot password?',
    'the token is valid for 3600 seconds',
    'private key: ~/.ssh/id_ed25519',
    'pwd: /home/dev/project',
    'npm i @aws-sdk/client-s3@3.600.0 lodash.debounce react-dom@19.1.0',
    'version v1.0-beta and 2.3.4-rc.1',
    'see https://example.com/docs?sig=short and https://hooks.slack.com/services/',
    'task.sk_live is a property, ACK received, TASK done, ASK me, MAC address',
    'max_tokens=4096, input_tokens: 93, PAGE_TOKEN=next',
    'ghp_ and sk- and glpat- alone are prefixes, not tokens',
    `data:image/png;base64,${random(ALPHABETS.b64, 3000)}`,
    "item.key = 'grpc'; this.keyName = 'primary'",
    'the token `getSession` is exported; a secret `handler` runs',
    'this.pass = false;\\n    return this.pass;',
  ];
  test.each(kept)('%s', (text) => {
    expect(redact(text)).toBe(text);
  });
});

describe('tokens cut short by a display limit', () => {
  test('a known prefix followed by a partial body and … is redacted', () => {
    const body = random(ALPHABETS.alnum, 14);
    expect(redact(`git push https://x:gh${'p_'}${body}…`)).toBe('git push https://x:[REDACTED:secret]…');
    expect(redact(`token ${'glpat'}-${body}…`)).toBe('token [REDACTED:secret]…');
  });

  test('a cut PEM key loses its material up to the cut', () => {
    const lines = [random(ALPHABETS.b64, 64), random(ALPHABETS.b64, 30)];
    expect(redact(`"-----BEGIN RSA PRIVATE KEY-----\\n${lines[0]}\\n${lines[1]}…`)).toBe('"[REDACTED:private-key]…');
  });

  test('ordinary cut text stays', () => {
    for (const text of ['see src/components/Butto…', `commit ${random(ALPHABETS.hex, 20)}…`, 'the skill set…']) {
      expect(redact(text)).toBe(text);
    }
  });
});

describe('linear time on hostile input', () => {
  // Small enough to sweep every gate in a few seconds, large enough that a quadratic rule takes tens of seconds.
  const size = 60_000;
  const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  const gates = [...new Set(TOKEN_RULES.flatMap((rule) => rule.gates))];
  test(`${gates.length} gates, repeated and glued to token characters, stay fast`, () => {
    const slow: string[] = [];
    for (const gate of gates) {
      for (const input of [fill(`${gate}a`), fill(`_${gate}0a-`), fill(`${gate}…`)]) {
        const started = performance.now();
        redact(input);
        const elapsed = performance.now() - started;
        if (elapsed > 400) slow.push(`${JSON.stringify(input.slice(0, 12))}: ${elapsed.toFixed(0)} ms`);
      }
    }
    expect(slow).toEqual([]);
  });

  test('prose and phrase heads stay fast', () => {
    for (const unit of ['password is ', 'the password for ', 'pwd: ', 'aws secret key ', 'passphrase a', 'token was ']) {
      const input = fill(unit);
      const started = performance.now();
      redact(input);
      expect(performance.now() - started, unit).toBeLessThan(1000);
    }
  });
});
