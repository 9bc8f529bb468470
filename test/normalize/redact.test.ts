import { describe, expect, test } from 'vitest';
import { MoonError } from '../../src/errors.js';
import { createRedactor } from '../../src/normalize/redact.js';

/**
 * Secrets are assembled from pieces at run time so nothing secret-shaped sits verbatim in the repository
 * (and secret scanners stay quiet). `mixed` gives deterministic, random-looking token characters.
 */
function mixed(length: number, alphabet = 'aZ3kQ9mX2pL7vB4nR8tY1wE6cU5'): string {
  let out = '';
  for (let index = 0; out.length < length; index++) out += alphabet[(index * 7 + 3) % alphabet.length];
  return out;
}
const b64url = (length: number) => mixed(length, 'aZ3k-Q9mX_2pL7vB4nR8tY1wE6cU5');

const SECRETS = {
  openaiLegacy: 'sk-' + mixed(48),
  openaiProject: 'sk-' + 'proj-' + b64url(120),
  anthropic: 'sk-' + 'ant-' + 'api03-' + b64url(93) + 'AA',
  githubClassic: 'gh' + 'p_' + mixed(36),
  githubOauth: 'gh' + 'o_' + mixed(36),
  githubServer: 'gh' + 's_' + mixed(36),
  githubFineGrained: 'github' + '_pat_' + mixed(22) + '_' + mixed(59),
  awsAccessKeyId: 'AK' + 'IA' + mixed(16, 'QWERTYUIOP2345ASDF67'),
  awsSecret: mixed(30) + '/' + mixed(9) + '+',
  slack: 'xo' + 'xb-' + '1234567890' + '-' + '0987654321' + '-' + mixed(24),
  stripeLive: 'sk' + '_live_' + mixed(24),
  stripeRestricted: 'rk' + '_live_' + mixed(24),
  google: 'AI' + 'za' + b64url(35),
  jwt: ['eyJ' + b64url(30), 'eyJ' + b64url(60), b64url(43)].join('.'),
};

const redact = createRedactor({ enabled: true });

describe('createRedactor: provider tokens', () => {
  const cases: [string, string, string][] = [
    ['OpenAI legacy key', `using ${SECRETS.openaiLegacy} for now`, 'openai-key'],
    ['OpenAI project key', `key=${SECRETS.openaiProject}`, 'openai-key'],
    ['Anthropic key', `"${SECRETS.anthropic}"`, 'anthropic-key'],
    ['GitHub classic token', `token ${SECRETS.githubClassic}`, 'github-token'],
    ['GitHub OAuth token', SECRETS.githubOauth, 'github-token'],
    ['GitHub server token', `(${SECRETS.githubServer})`, 'github-token'],
    ['GitHub fine-grained PAT', `pat: ${SECRETS.githubFineGrained}`, 'github-token'],
    ['AWS access key id', `id ${SECRETS.awsAccessKeyId} in us-east-1`, 'aws-access-key'],
    ['Slack bot token', `SLACK=${SECRETS.slack}`, 'slack-token'],
    ['Stripe live key', `stripe ${SECRETS.stripeLive}`, 'stripe-key'],
    ['Stripe restricted key', SECRETS.stripeRestricted, 'stripe-key'],
    ['Google API key', `?key=${SECRETS.google}&q=1`, 'google-api-key'],
    ['JWT', `cookie: session=${SECRETS.jwt}; Path=/`, 'jwt'],
  ];

  test.each(cases)('%s', (_name, text, kind) => {
    const out = redact(text);
    expect(out).toContain(`[REDACTED:${kind}]`);
    for (const secret of Object.values(SECRETS)) expect(out).not.toContain(secret);
  });

  test('keeps the text around a token', () => {
    expect(redact(`export OPENAI_API_KEY=${SECRETS.openaiProject}\nnpm test`)).toBe(
      'export OPENAI_API_KEY=[REDACTED:openai-key]\nnpm test',
    );
  });
});

describe('createRedactor: headers, URLs, PEM blocks', () => {
  test('Authorization: Bearer and bare Bearer tokens keep the scheme', () => {
    const token = b64url(40);
    expect(redact(`curl -H "Authorization: Bearer ${token}" https://api.example.com`)).toBe(
      'curl -H "Authorization: Bearer [REDACTED:bearer]" https://api.example.com',
    );
    expect(redact(`send Bearer ${token} along`)).toBe('send Bearer [REDACTED:bearer] along');
    expect(redact(`authorization: Basic ${mixed(24)}==`)).toBe('authorization: Basic [REDACTED:bearer]');
  });

  test('passwords in URLs keep the user and host', () => {
    const password = 'pa55' + mixed(10);
    expect(redact(`postgres://admin:${password}@db.internal:5432/app`)).toBe(
      'postgres://admin:[REDACTED:password]@db.internal:5432/app',
    );
    expect(redact(`redis://:${password}@cache:6379`)).toBe('redis://:[REDACTED:password]@cache:6379');
  });

  test('PEM private keys are redacted as a whole block', () => {
    const body = Array.from({ length: 5 }, (_, line) => mixed(64, `abcXYZ0189+/${line}`)).join('\n');
    const kinds = ['RSA ', 'OPENSSH ', 'EC ', ''];
    for (const kind of kinds) {
      const pem = `-----BEGIN ${kind}PRIVATE KEY-----\n${body}\n-----END ${kind}PRIVATE KEY-----`;
      expect(redact(`key file:\n${pem}\ndone`)).toBe('key file:\n[REDACTED:private-key]\ndone');
    }
  });

  test('a PEM key embedded in JSON with escaped newlines is redacted', () => {
    const pem = `-----BEGIN PRIVATE KEY-----\\n${mixed(64)}\\n${mixed(20)}==\\n-----END PRIVATE KEY-----\\n`;
    expect(redact(`{"private_key": "${pem}", "client_email": "bot@example.com"}`)).toBe(
      '{"private_key": "[REDACTED:private-key]\\n", "client_email": "bot@example.com"}',
    );
  });

  test('a truncated PEM key (no END line) is redacted up to the end of its key material', () => {
    const text = `-----BEGIN RSA PRIVATE KEY-----\n${mixed(64)}\n${mixed(64)}\n\nNote: output truncated.`;
    expect(redact(text)).toBe('[REDACTED:private-key]\n\nNote: output truncated.');
  });

  test('public keys and certificates are kept', () => {
    const cert = `-----BEGIN CERTIFICATE-----\n${mixed(64)}\n-----END CERTIFICATE-----`;
    expect(redact(cert)).toBe(cert);
  });
});

describe('createRedactor: secret assignments', () => {
  const value = 'Qx7' + mixed(21);
  const cases: [string, string, string][] = [
    ['.env line', `DATABASE_PASSWORD=${value}`, 'DATABASE_PASSWORD=[REDACTED:password]'],
    ['export with quotes', `export API_TOKEN="${value}"`, 'export API_TOKEN="[REDACTED:secret]"'],
    ['colon form', `client_secret: ${value}`, 'client_secret: [REDACTED:secret]'],
    ['JSON', `{"api_key": "${value}", "model": "gpt"}`, '{"api_key": "[REDACTED:secret]", "model": "gpt"}'],
    ['single-quoted Python', `SECRET_KEY = '${value}'`, "SECRET_KEY = '[REDACTED:secret]'"],
    ['AWS secret key', `aws_secret_access_key = ${SECRETS.awsSecret}`, 'aws_secret_access_key = [REDACTED:aws-secret-key]'],
    ['camelCase key', `apiKey: "${value}"`, 'apiKey: "[REDACTED:secret]"'],
    ['CLI flag', `mysql --password=${value} -h db`, 'mysql --password=[REDACTED:password] -h db'],
    ['header-style key', `x-api-key: ${value}`, 'x-api-key: [REDACTED:secret]'],
    ['bare word in env style', 'PASSWD=hunter', 'PASSWD=[REDACTED:password]'],
    ['trailing syntax stays', `call(token=${value}), next`, 'call(token=[REDACTED:secret]), next'],
    ['nested in a non-secret value', `{"cmd": "deploy --auth-token=${value}"}`, '{"cmd": "deploy --auth-token=[REDACTED:secret]"}'],
  ];
  test.each(cases)('%s', (_name, text, expected) => {
    expect(redact(text)).toBe(expected);
  });
});

describe('createRedactor: no false positives', () => {
  const kept = [
    'The password is stored in the vault; rotate the API key monthly.',
    'Use a Bearer token in the Authorization header.',
    'Bearer authentication is configured in middleware.',
    'commit 3f786850e387550fdab836ed7e6dc881de23001b',
    'session 0f8fad5b-d9cb-469f-a165-70867728950e started',
    'API_KEY=',
    'API_KEY=${OPENAI_API_KEY}',
    'export GITHUB_TOKEN=$(gh auth token)',
    'OPENAI_API_KEY=<your-key>',
    'STRIPE_SECRET_KEY=your-key-here',
    'PASSWORD=changeme',
    'const apiKey = process.env.API_KEY;',
    'password: string;',
    'token = await getToken()',
    'api_key = os.environ["API_KEY"]',
    'MAX_TOKENS=4096',
    '"max_tokens": 1024, "input_tokens": 93',
    '"primary_key": "id", "sort_key": "created_at"',
    'pip install scikit-learn  # sk-learn-compatible-estimators',
    'http://localhost:8080/path and https://user@example.com/repo',
    'if password == other: pass',
    'Secret: the value we discussed',
    'PWD=/home/me/project',
    'C:\\Users\\me\\AppData\\Roaming\\npm',
    '-----BEGIN PUBLIC KEY-----',
  ];
  test.each(kept)('%s', (text) => {
    expect(redact(text)).toBe(text);
  });
});

describe('createRedactor: properties', () => {
  const corpus = [
    `export OPENAI_API_KEY=${SECRETS.openaiProject}`,
    `Authorization: Bearer ${SECRETS.jwt}`,
    `{"token": "Bearer ${b64url(40)}", "password": "p4ss${mixed(8)}"}`,
    `postgres://u:p4ss${mixed(8)}@h/db and ${SECRETS.githubClassic}`,
    `-----BEGIN PRIVATE KEY-----\n${mixed(64)}\n-----END PRIVATE KEY-----`,
    `AWS_ACCESS_KEY_ID=${SECRETS.awsAccessKeyId}\nAWS_SECRET_ACCESS_KEY=${SECRETS.awsSecret}`,
    `SLACK_BOT_TOKEN='${SECRETS.slack}'`,
  ];

  test('redaction is idempotent', () => {
    for (const text of corpus) {
      const once = redact(text);
      expect(once).toContain('[REDACTED:');
      expect(redact(once)).toBe(once);
    }
  });

  test('disabled redaction returns text unchanged', () => {
    const off = createRedactor({ enabled: false });
    for (const text of corpus) expect(off(text)).toBe(text);
  });

  test('extra patterns redact as custom, after the built-in rules', () => {
    const custom = createRedactor({ enabled: true, extraPatterns: ['ACME-[0-9]{6}', 'internal\\.corp\\.example'] });
    expect(custom('ticket ACME-123456 on internal.corp.example')).toBe('ticket [REDACTED:custom] on [REDACTED:custom]');
    expect(custom(custom('ticket ACME-123456'))).toBe('ticket [REDACTED:custom]');
  });

  test('an extra pattern that can match nothing does not insert markers everywhere', () => {
    expect(createRedactor({ enabled: true, extraPatterns: ['x*'] })('abc xx')).toBe('abc [REDACTED:custom]');
  });

  test('an invalid extra pattern throws an error naming the pattern', () => {
    const build = () => createRedactor({ enabled: true, extraPatterns: ['ok', 'broken(['] });
    expect(build).toThrow(MoonError);
    expect(build).toThrow(/broken\(\[/);
    // Validated even when redaction is off, so a bad config fails at startup.
    expect(() => createRedactor({ enabled: false, extraPatterns: ['('] })).toThrow(/"\("/);
  });

  test('every rule stays linear on hostile 1 MB lines', () => {
    const size = 1_000_000;
    const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
    const inputs = [
      fill('a'),
      fill('sk-'),
      fill('sk-aaaa'),
      fill('key=a'),
      fill('a_key=$'),
      fill('password:'),
      fill('"secret": "'),
      fill('-----BEGIN PRIVATE KEY-----'),
      fill('-----BEGIN PRIVATE KEY-----A'),
      fill('Bearer '),
      fill('Authorization: '),
      fill('https://'),
      fill('x://u:'),
      fill('eyJaaaaaaaaaaa.'),
      fill('AKIA'),
      fill(' '),
      fill('token = '),
    ];
    for (const input of inputs) {
      const started = performance.now();
      redact(input);
      const elapsed = performance.now() - started;
      expect(elapsed, `input starting ${JSON.stringify(input.slice(0, 30))}`).toBeLessThan(2000);
    }
  });
});
