/**
 * Secrets of every kind moon redacts, built at run time from a prefix and a generated body so that nothing
 * secret-shaped is committed (and repository scanners stay quiet). Each case says what text to plant and which
 * parts must never come out again (`bodies`: the generated, secret part — prefixes like `ghp_` may stay).
 */

export interface SecretCase {
  name: string;
  /** The text to plant, in a sentence or a command. */
  text: string;
  /** Strings that must not appear in anything moon stores or prints. */
  bodies: string[];
  /** The marker kind expected, where one kind is certain. */
  kind?: string;
}

/** mulberry32: a small seeded generator, so a failure reproduces with the same bodies. */
export function createRandom(seed: number): (alphabet: string, length: number) => string {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
  return (alphabet, length) => {
    let out = '';
    for (let index = 0; index < length; index++) out += alphabet[Math.floor(next() * alphabet.length)];
    return out;
  };
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
const DIGITS = '0123456789';
export const ALPHABETS = {
  alnum: LOWER + UPPER + DIGITS,
  alpha: LOWER + UPPER,
  lowerNum: LOWER + DIGITS,
  upperNum: UPPER + DIGITS,
  hex: '0123456789abcdef',
  digits: DIGITS,
  b64: LOWER + UPPER + DIGITS + '+/',
  b64url: LOWER + UPPER + DIGITS + '-_',
};

/** Generated bodies always mix letters and digits (as real keys do); the generator retries until they do. */
function mixedBody(random: (alphabet: string, length: number) => string, alphabet: string, length: number): string {
  for (;;) {
    const body = random(alphabet, length);
    const classes = [/[0-9]/, /[a-z]/, /[A-Z]/].filter((pattern) => pattern.test(body)).length;
    const needed = [/[0-9]/, /[a-z]/, /[A-Z]/].filter((pattern) => pattern.test(alphabet)).length;
    if (classes >= Math.min(2, needed) && !/^[-_]|[-_]$|--|__/.test(body)) return body;
  }
}

export function buildSecretCases(seed = 20260522): SecretCase[] {
  const random = createRandom(seed);
  const r = (alphabet: keyof typeof ALPHABETS, length: number): string => mixedBody(random, ALPHABETS[alphabet], length);
  const cases: SecretCase[] = [];
  /** A token: prefix + body, planted as is. */
  const token = (name: string, kind: string, prefix: string, body: string, suffix = ''): void => {
    cases.push({ name, kind, text: `${prefix}${body}${suffix}`, bodies: [body] });
  };
  const pem = (type: string): void => {
    const lines = Array.from({ length: 6 }, () => r('b64', 64));
    const text = `-----BEGIN ${type}-----\n${lines.join('\n')}\n${r('b64', 20)}==\n-----END ${type}-----`;
    cases.push({ name: `pem ${type}`, kind: 'private-key', text, bodies: lines });
  };

  // AI providers.
  token('openai legacy', 'openai-key', 'sk-', r('alnum', 48));
  token('openai project', 'openai-key', 'sk-' + 'proj-', r('b64url', 100));
  token('anthropic', 'anthropic-key', 'sk-' + 'ant-api03-', r('b64url', 93), 'AA');
  token('openrouter', 'openrouter-key', 'sk-' + 'or-v1-', r('hex', 64));
  token('hugging face', 'huggingface-token', 'h' + 'f_', r('alpha', 34));
  token('groq', 'groq-key', 'gs' + 'k_', r('alnum', 52));
  token('replicate', 'replicate-token', 'r' + '8_', r('alnum', 37));
  token('perplexity', 'perplexity-key', 'pp' + 'lx-', r('alnum', 48));
  token('xai', 'xai-key', 'xa' + 'i-', r('alnum', 80));
  token('langsmith', 'langsmith-key', 'ls' + 'v2_pt_', r('hex', 32), '_' + r('hex', 10));
  token('tavily', 'tavily-key', 'tv' + 'ly-', r('alnum', 32));
  // Cloud providers.
  token('aws access key id', 'aws-access-key', 'AK' + 'IA', r('upperNum', 16));
  cases.push({ name: 'aws secret key in prose', kind: 'aws-secret-key', ...withBody(r('b64', 40), (v) => `aws secret key: ${v}`) });
  cases.push({ name: 'aws secret assignment', kind: 'aws-secret-key', ...withBody(r('b64', 40), (v) => `AWS_SECRET_ACCESS_KEY=${v}`) });
  token('gcp api key', 'google-api-key', 'AI' + 'za', r('b64url', 35));
  token('google oauth client secret', 'google-oauth-secret', 'GOC' + 'SPX-', r('b64url', 28));
  {
    const lines = Array.from({ length: 4 }, () => r('b64', 64));
    const key = `-----BEGIN PRIVATE KEY-----\\n${lines.join('\\n')}\\n-----END PRIVATE KEY-----\\n`;
    cases.push({
      name: 'gcp service account json',
      kind: 'private-key',
      text: `{"type": "service_account", "private_key": "${key}", "client_email": "ci@proj.iam.gserviceaccount.com"}`,
      bodies: lines,
    });
  }
  {
    const key = r('b64', 86);
    cases.push({
      name: 'azure storage connection string',
      kind: 'azure-storage-key',
      text: `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${key}==;EndpointSuffix=core.windows.net`,
      bodies: [key],
    });
  }
  token('azure client secret', 'azure-client-secret', r('alnum', 3) + '8Q~', r('alnum', 34));
  token('digitalocean', 'digitalocean-token', 'do' + 'p_v1_', r('hex', 64));
  token('heroku', 'heroku-key', 'HR' + 'KU-AA', r('b64url', 58));
  token('alibaba', 'alibaba-access-key', 'LT' + 'AI', r('alnum', 20));
  token('hashicorp vault', 'vault-token', 'hv' + 's.', r('b64url', 95));
  token('databricks', 'databricks-token', 'da' + 'pi', r('hex', 32));
  token('grafana service account', 'grafana-token', 'gl' + 'sa_', r('alnum', 32), '_' + r('hex', 8));
  token('doppler', 'doppler-token', 'dp.' + 'pt.', r('alnum', 43));
  token('new relic', 'newrelic-key', 'NR' + 'AK-', r('upperNum', 27));
  token('pulumi', 'pulumi-token', 'pu' + 'l-', r('hex', 40));
  token('sentry', 'sentry-token', 'sntr' + 'ys_', r('alnum', 60));
  token('vercel', 'vercel-token', 'vc' + 'p_', r('alnum', 56));
  token('notion', 'notion-token', 'nt' + 'n_', r('digits', 11) + r('alnum', 35));
  token('figma', 'figma-token', 'fig' + 'd_', r('b64url', 40));
  token('linear', 'linear-key', 'lin' + '_api_', r('alnum', 40));
  token('shopify', 'shopify-token', 'shp' + 'at_', r('hex', 32));
  token('age secret key', 'age-secret-key', 'AGE-SECRET-' + 'KEY-1', r('upperNum', 58));
  // Version control hosts.
  token('github classic', 'github-token', 'gh' + 'p_', r('alnum', 36));
  token('github fine-grained', 'github-token', 'github' + '_pat_', r('alnum', 22) + '_' + r('alnum', 59));
  token('github app', 'github-token', 'gh' + 's_', r('alnum', 36));
  token('github refresh', 'github-token', 'gh' + 'r_', r('alnum', 36));
  token('gitlab personal', 'gitlab-token', 'gl' + 'pat-', r('b64url', 20));
  token('gitlab deploy', 'gitlab-token', 'gl' + 'dt-', r('b64url', 20));
  token('gitlab runner', 'gitlab-token', 'gl' + 'rt-', r('b64url', 20));
  token('bitbucket', 'bitbucket-token', 'AT' + 'BB', r('alnum', 32));
  // Package registries.
  token('npm', 'npm-token', 'np' + 'm_', r('alnum', 36));
  token('pypi', 'pypi-token', 'py' + 'pi-AgEIcHlwaS5vcmc', r('b64url', 70));
  token('rubygems', 'rubygems-token', 'ruby' + 'gems_', r('hex', 48));
  token('nuget', 'nuget-key', 'oy' + '2', r('lowerNum', 43));
  token('docker hub', 'docker-hub-token', 'dck' + 'r_pat_', r('b64url', 27));
  // Payments.
  token('stripe live', 'stripe-key', 'sk' + '_live_', r('alnum', 24));
  token('stripe restricted', 'stripe-key', 'rk' + '_live_', r('alnum', 24));
  token('stripe webhook secret', 'stripe-webhook-secret', 'wh' + 'sec_', r('alnum', 32));
  token('square', 'square-token', 'sq0' + 'atp-', r('b64url', 22));
  token('braintree', 'braintree-token', 'access_token$' + 'production$', r('lowerNum', 16) + '$' + r('hex', 32));
  // Messaging and webhooks.
  token('slack bot', 'slack-token', 'xo' + 'xb-', `${r('digits', 11)}-${r('digits', 12)}-${r('alnum', 24)}`);
  token('slack webhook', 'slack-webhook', 'https://hooks.slack.com/' + 'services/', `T${r('upperNum', 8)}/B${r('upperNum', 8)}/${r('alnum', 24)}`);
  token('twilio api key', 'twilio-key', 'S' + 'K', r('hex', 32));
  token('twilio account sid', 'twilio-account-sid', 'A' + 'C', r('hex', 32));
  token('sendgrid', 'sendgrid-key', 'S' + 'G.', `${r('b64url', 22)}.${r('b64url', 43)}`);
  token('mailgun', 'mailgun-key', 'ke' + 'y-', r('hex', 32));
  token('mailchimp', 'mailchimp-key', '', r('hex', 32), '-us12');
  token('discord bot', 'discord-bot-token', 'M', `${r('alnum', 23)}.${r('alnum', 6)}.${r('alnum', 27)}`);
  token('discord webhook', 'discord-webhook', 'https://discord.com/api/' + 'webhooks/', `${r('digits', 18)}/${r('b64url', 68)}`);
  token('telegram bot', 'telegram-bot-token', '', `${r('digits', 10)}:AA${r('b64url', 33)}`);
  {
    const secret = r('hex', 32);
    cases.push({
      name: 'teams webhook',
      kind: 'teams-webhook',
      text: `https://acme.webhook.office.com/webhookb2/${r('hex', 8)}@${r('hex', 8)}/IncomingWebhook/${secret}/${r('hex', 8)}`,
      bodies: [secret],
    });
  }
  token('zapier webhook', 'zapier-webhook', 'https://hooks.zapier.com/hooks/' + 'catch/', `${r('digits', 7)}/${r('lowerNum', 7)}`, '/');
  // Databases.
  for (const [scheme, user, host] of [
    ['postgres', 'app', 'db.internal:5432/app'],
    ['mysql', 'root', 'localhost:3306/shop'],
    ['mongodb+srv', 'admin', 'cluster0.abcde.mongodb.net/prod'],
    ['redis', '', 'cache:6379/0'],
    ['amqp', 'guest', 'mq:5672/'],
  ]) {
    cases.push({ name: `${scheme} url`, kind: 'password', ...withBody(r('alnum', 18), (v) => `${scheme}://${user}:${v}@${host}`) });
  }
  token('supabase', 'supabase-token', 'sb' + 'p_', r('hex', 40));
  token('planetscale', 'planetscale-token', 'pscale' + '_tkn_', r('b64url', 43));
  token('neon', 'neon-key', 'na' + 'pi_', r('lowerNum', 64));
  // Private keys.
  for (const type of ['RSA PRIVATE KEY', 'EC PRIVATE KEY', 'DSA PRIVATE KEY', 'OPENSSH PRIVATE KEY', 'ENCRYPTED PRIVATE KEY', 'PGP PRIVATE KEY BLOCK']) pem(type);
  {
    const lines = Array.from({ length: 4 }, () => r('b64', 64));
    const text = [
      'PuTTY-User-Key-File-3: ssh-ed25519',
      'Encryption: none',
      'Comment: deploy@ci',
      'Public-Lines: 2',
      r('b64', 64),
      r('b64', 20),
      'Private-Lines: 4',
      ...lines,
      `Private-MAC: ${r('hex', 64)}`,
    ].join('\n');
    cases.push({ name: 'putty key', kind: 'private-key', text, bodies: lines });
  }
  // Tokens in any wrapper, generic assignments and prose.
  token('jwt', 'jwt', 'ey' + 'J', `${r('b64url', 30)}.ey` + `J${r('b64url', 60)}.${r('b64url', 43)}`);
  token('bearer header', 'bearer', 'Authorization: Bearer ', r('b64url', 40));
  cases.push({ name: 'env password', kind: 'password', ...withBody(r('alnum', 20), (v) => `DATABASE_PASSWORD=${v}`) });
  cases.push({ name: 'json apiKey', kind: 'secret', ...withBody(r('alnum', 32), (v) => `{"apiKey": "${v}", "region": "eu"}`) });
  cases.push({ name: 'yaml client_secret', kind: 'secret', ...withBody(r('alnum', 30), (v) => `client_secret: ${v}`) });
  cases.push({ name: 'prose password', kind: 'password', ...withBody(`hunter${r('digits', 6)}`, (v) => `the password is ${v}`) });
  cases.push({ name: 'prose pwd', kind: 'password', ...withBody(`${r('alnum', 12)}!`, (v) => `pwd: ${v}`) });
  cases.push({ name: 'prose passphrase', kind: 'password', ...withBody(`tr0ub4dor&${r('digits', 5)}`, (v) => `passphrase ${v}`) });
  cases.push({ name: 'prose api key', kind: 'secret', ...withBody(r('alnum', 32), (v) => `my api key is ${v}`) });
  return cases;
}

function withBody(body: string, render: (value: string) => string): { text: string; bodies: string[] } {
  return { text: render(body), bodies: [body] };
}

/**
 * Text that looks a little like a secret and must stay exactly as it is, each with a word recall can find it by.
 */
export function buildKeptCases(seed = 7): { text: string; find: string }[] {
  const random = createRandom(seed);
  const hex = (length: number) => random(ALPHABETS.hex, length);
  const sha = hex(40);
  const shortSha = hex(7);
  const digest = hex(64);
  const uuid = `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  return [
    { text: `commit ${sha} fixed the build`, find: sha },
    { text: `cherry-pick ${shortSha} onto main`, find: shortSha },
    { text: `image digest sha256:${digest} pushed`, find: digest },
    { text: `request id ${uuid} failed`, find: uuid },
    { text: 'const apiKey = process.env.API_KEY; // apiKeyName stays', find: 'apiKeyName' },
    { text: 'API_KEY=${OPENAI_API_KEY} npm start', find: 'OPENAI_API_KEY' },
    { text: 'upgraded typescript to 5.9.3 and vitest 4.1.12', find: '5.9.3' },
    { text: 'installed @secretlint/core and sk-learn-helpers', find: 'secretlint' },
    { text: 'please reset your password from the settings page', find: 'settings' },
    { text: 'the password field needs a minimum length', find: 'minimum' },
    { text: 'the password is stored in the vault', find: 'vault' },
  ];
}
