/**
 * Token formats of common providers, written from their documented shapes. Each rule lists the literal
 * prefixes that must occur for it to match (its gates) so the scanner runs only the rules a text can trigger.
 *
 * Linear-time discipline, pinned by the hostile-input tests: a body of unbounded length is never followed by a
 * lookahead its own character class could fail (a greedy run then ends where the lookahead holds, so a failed
 * attempt never backtracks through a long run); an end check `E` only follows bodies of bounded length.
 */

export interface TokenRule {
  kind: string;
  gates: readonly string[];
  pattern: RegExp;
  /** Keep matches that do not look generated: prefixes that also start ordinary words (`sk-learn-…`). */
  random?: boolean;
}

/** Start of a distinctive prefix: not glued to a letter or digit (`_`, `-`, `/` may precede: `mcp__x__ghp_…`). */
const S = '(?<![A-Za-z0-9])';
/** Start of a short or word-like prefix: not glued to any token character. */
const B = '(?<![A-Za-z0-9_-])';
/** Start inside base64 text: `+`, `/` and `=` glue too, so a data URL's payload does not start a match. */
const B64 = '(?<![A-Za-z0-9+/=_-])';
/** End of a bounded body: no more token characters (keeps prefixes of longer identifiers out). */
const E = '(?![A-Za-z0-9_-])';
const HEX = '[0-9a-f]';
const UUID = `${HEX}{8}-${HEX}{4}-${HEX}{4}-${HEX}{4}-${HEX}{12}`;

function rule(kind: string, gates: string[], source: string, random = false): TokenRule {
  return { kind, gates, pattern: new RegExp(source, 'g'), random };
}

export const TOKEN_RULES: readonly TokenRule[] = [
  // AI providers. Specific `sk-` forms come before the generic OpenAI rule.
  rule('anthropic-key', ['sk-ant-'], `${S}sk-ant-[A-Za-z0-9_-]{20,}`, true),
  rule('openrouter-key', ['sk-or-'], `${S}sk-or-v1-${HEX}{64}${E}`),
  rule('openai-key', ['sk-'], `${B}sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}`, true),
  rule('elevenlabs-key', ['sk_'], `${B}sk_${HEX}{48}${E}`),
  rule('huggingface-token', ['hf_', 'api_org_'], `${S}(?:hf|api_org)_[A-Za-z0-9]{30,40}${E}`, true),
  rule('groq-key', ['gsk_'], `${S}gsk_[A-Za-z0-9]{48,56}${E}`),
  rule('replicate-token', ['r8_'], `${S}r8_[A-Za-z0-9]{37}${E}`),
  rule('perplexity-key', ['pplx-'], `${S}pplx-[A-Za-z0-9]{40,56}${E}`),
  rule('xai-key', ['xai-'], `${S}xai-[A-Za-z0-9]{70,90}${E}`),
  rule('langsmith-key', ['lsv2_'], `${S}lsv2_(?:pt|sk)_${HEX}{32}_${HEX}{10}${E}`),
  rule('pinecone-key', ['pcsk_'], `${S}pcsk_[A-Za-z0-9_]{40,}`),
  rule('tavily-key', ['tvly-'], `${S}tvly-(?:dev-|prod-)?[A-Za-z0-9]{20,48}${E}`),

  // Cloud providers and platforms.
  rule('aws-access-key', ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'A3T'], `(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])`),
  rule('google-api-key', ['AIza'], `${S}AIza[A-Za-z0-9_-]{35}${E}`),
  rule('google-oauth-secret', ['GOCSPX-'], `${S}GOCSPX-[A-Za-z0-9_-]{28}${E}`),
  rule('google-oauth-token', ['ya29.'], `${S}ya29\\.[A-Za-z0-9_-]{30,}`),
  rule('azure-storage-key', ['AccountKey='], `(?<=AccountKey=)[A-Za-z0-9+/]{86}==`),
  rule('azure-access-key', ['SharedAccessKey='], `(?<=SharedAccessKey=)[A-Za-z0-9+/]{42,44}=?`),
  rule('azure-sas-signature', ['sig='], `(?<=[?&;]sig=)[A-Za-z0-9%+/=_-]{30,}`),
  rule('azure-client-secret', ['Q~'], `(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~-])`),
  rule('digitalocean-token', ['dop_v1_', 'doo_v1_', 'dor_v1_'], `${S}do[opr]_v1_${HEX}{64}${E}`),
  rule('heroku-key', ['HRKU-'], `${S}HRKU-[A-Za-z0-9_-]{58,62}${E}`),
  rule('alibaba-access-key', ['LTAI'], `(?<![A-Za-z0-9])LTAI[A-Za-z0-9]{12,20}(?![A-Za-z0-9])`, true),
  rule('cloudflare-origin-key', ['v1.0-'], `${S}v1\\.0-${HEX}{24}-${HEX}{146}${E}`),
  rule('flyio-token', ['fo1_', 'fm1a_', 'fm1r_', 'fm2_'], `${S}(?:fo1|fm1[ar]|fm2)_[A-Za-z0-9+/=_-]{40,}`),
  rule('doppler-token', ['dp.'], `${S}dp\\.(?:pt|st|sa|ct|scim|audit)\\.[A-Za-z0-9]{40,44}${E}`),
  rule('vault-token', ['hvs.', 'hvb.'], `${S}hv[sb]\\.[A-Za-z0-9_-]{90,}`),
  rule('terraform-token', ['.atlasv1.'], `(?<![A-Za-z0-9])[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{60,}`),
  rule('pulumi-token', ['pul-'], `${S}pul-${HEX}{40}${E}`),
  rule('databricks-token', ['dapi'], `${S}dapi[0-9a-fA-F]{32}(?:-[0-9])?${E}`),
  rule('grafana-token', ['glc_'], `${S}glc_[A-Za-z0-9+/]{32,}={0,2}`),
  rule('grafana-token', ['glsa_'], `${S}glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}${E}`),
  rule('newrelic-key', ['NRAK-'], `${S}NRAK-[A-Z0-9]{27}${E}`),
  rule('sentry-token', ['sntrys_', 'sntryu_'], `${S}sntry[su]_[A-Za-z0-9+/=_]{40,}`),
  rule('postman-key', ['PMAK-'], `${S}PMAK-${HEX}{24}-${HEX}{34}${E}`),
  rule('linear-key', ['lin_api_', 'lin_oauth_'], `${S}lin_(?:api|oauth)_[A-Za-z0-9]{40}${E}`),
  rule('atlassian-token', ['ATATT3', 'ATCTT3'], `${S}AT[AC]TT3[A-Za-z0-9_=-]{100,}`),
  rule('shopify-token', ['shpat_', 'shpca_', 'shppa_', 'shpss_'], `${S}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}${E}`),
  rule('dynatrace-token', ['dt0c01.'], `${S}dt0c01\\.[A-Z0-9]{24}\\.[A-Z0-9]{64}${E}`),
  rule('age-secret-key', ['AGE-SECRET-KEY-1'], `AGE-SECRET-KEY-1[A-Z0-9]{58}`),
  rule('onepassword-token', ['ops_eyJ'], `${S}ops_eyJ[A-Za-z0-9+/=_-]{100,}`),
  rule('vercel-token', ['vcp_', 'vci_', 'vca_', 'vcr_', 'vck_'], `${S}vc[pcirak]_[A-Za-z0-9]{20,60}${E}`),
  rule('netlify-token', ['nfp_'], `${S}nfp_[A-Za-z0-9]{36}${E}`),
  rule('render-key', ['rnd_'], `${S}rnd_[A-Za-z0-9]{32}${E}`, true),
  rule('notion-token', ['ntn_'], `${S}ntn_[0-9]{11}[A-Za-z0-9]{35}${E}`),
  rule('figma-token', ['figd_'], `${S}figd_[A-Za-z0-9_-]{40,}`),

  // Databases and data platforms (connection URLs are handled with the other URL passwords).
  rule('supabase-token', ['sbp_'], `${S}sbp_(?:oauth_)?${HEX}{40}${E}`),
  rule('supabase-token', ['sb_secret_'], `${S}sb_secret_[A-Za-z0-9_-]{20,}`),
  rule('planetscale-token', ['pscale_'], `${S}pscale_(?:pw|tkn|oauth)_[A-Za-z0-9_.=-]{32,}`),
  rule('neon-key', ['napi_'], `${S}napi_[a-z0-9]{64}${E}`),

  // Version control hosts.
  rule('github-token', ['ghp_', 'gho_', 'ghs_', 'ghu_', 'ghr_'], `${S}gh[posur]_[A-Za-z0-9]{30,}${E}`),
  rule('github-token', ['github_pat_'], `${S}github_pat_[A-Za-z0-9_]{22,}`),
  rule(
    'gitlab-token',
    ['glpat-', 'gldt-', 'glrt-', 'glcbt-', 'glft-', 'glimt-', 'glagent-', 'glsoat-', 'glffct-', 'gloas-', 'glptt-', 'glwt-'],
    `${S}(?:glpat|gldt|glrt|glcbt|glft|glimt|glagent|glsoat|glffct|gloas|glptt|glwt)-[A-Za-z0-9_.-]{20,}`,
  ),
  rule('gitlab-token', ['GR1348941'], `${S}GR1348941[A-Za-z0-9_-]{20,}`),
  rule('bitbucket-token', ['ATBB'], `${S}ATBB[A-Za-z0-9_=.-]{28,}`),

  // Package registries.
  rule('npm-token', ['npm_'], `${S}npm_[A-Za-z0-9]{36}${E}`),
  rule('pypi-token', ['pypi-AgE'], `${S}pypi-AgE[A-Za-z0-9_-]{50,}`),
  rule('rubygems-token', ['rubygems_'], `${S}rubygems_${HEX}{48}${E}`),
  rule('nuget-key', ['oy2'], `${B}oy2[a-z0-9]{43}${E}`, true),
  rule('docker-hub-token', ['dckr_pat_', 'dckr_oat_'], `${S}dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}`),
  rule('crates-token', ['cio'], `${B}cio[A-Za-z0-9]{32}${E}`, true),
  rule('clojars-token', ['CLOJARS_'], `${S}CLOJARS_[a-z0-9]{60}${E}`),
  rule('artifactory-token', ['AKCp'], `${B}AKCp[A-Za-z0-9]{69}${E}`),
  rule('artifactory-token', ['cmVmdGtuOjAx'], `${B}cmVmdGtuOjAx[A-Za-z0-9]{52}${E}`),

  // Payments.
  rule('stripe-key', ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_'], `${S}[sr]k_(?:live|test)_[A-Za-z0-9]{16,}`),
  rule('stripe-webhook-secret', ['whsec_'], `${S}whsec_[A-Za-z0-9+/=]{32,}`),
  rule('facebook-token', ['EAA'], `${S}EAA[B-Z][A-Za-z0-9]{90,}`),
  rule('square-token', ['EAAA'], `${S}EAAA[A-Za-z0-9_-]{60,}`, true),
  rule('square-token', ['sq0atp-', 'sq0csp-', 'sq0idp-'], `${S}sq0(?:atp|csp|idp)-[A-Za-z0-9_-]{22,43}${E}`),
  rule('braintree-token', ['access_token$'], `access_token\\$(?:production|sandbox)\\$[a-z0-9]{16}\\$${HEX}{32}`),
  rule('adyen-key', ['AQE'], `${B64}AQE[A-Za-z0-9+/=._-]{80,}`, true),
  rule('razorpay-key', ['rzp_live_', 'rzp_test_'], `${S}rzp_(?:live|test)_[A-Za-z0-9]{14,}`),
  rule('flutterwave-key', ['FLWSECK'], `${S}FLWSECK(?:_TEST)?-[a-hA-H0-9]{32}-X`),
  rule('plaid-token', ['access-sandbox-', 'access-development-', 'access-production-'], `${S}access-(?:sandbox|development|production)-${UUID}`),
  rule('shippo-token', ['shippo_'], `${S}shippo_(?:live|test)_${HEX}{40}${E}`),
  rule('gocardless-token', ['live_'], `${B}live_[A-Za-z0-9_-]{40}${E}`, true),

  // Messaging and webhooks. Webhook URLs keep their host and lose the secret path.
  rule('slack-token', ['xoxa-', 'xoxb-', 'xoxp-', 'xoxo-', 'xoxs-', 'xoxr-', 'xoxc-', 'xoxd-', 'xoxe-', 'xoxe.'], `${S}xox(?:[abposrcd]-|e[.-])[A-Za-z0-9.-]{10,}`),
  rule('slack-token', ['xapp-'], `${S}xapp-[0-9]-[A-Za-z0-9-]{20,}`),
  rule('slack-webhook', ['hooks.slack.com/'], `(?<=hooks\\.slack\\.com/(?:services|workflows|triggers)/)[A-Za-z0-9_/+-]{20,}`),
  rule('discord-webhook', ['.com/api/webhooks/'], `(?<=discord(?:app)?\\.com/api/webhooks/)[0-9]{5,30}/[A-Za-z0-9_-]{20,}`),
  rule('teams-webhook', ['webhook.office.com/', '.com/webhook/'], `(?<=(?:webhook\\.office\\.com/webhookb2|outlook\\.office(?:365)?\\.com/webhook)/)[A-Za-z0-9@/_-]{20,}`),
  rule('zapier-webhook', ['hooks.zapier.com/'], `(?<=hooks\\.zapier\\.com/hooks/catch/)[0-9]+/[A-Za-z0-9]+`),
  rule('twilio-key', ['SK'], `${B}SK${HEX}{32}${E}`),
  rule('twilio-account-sid', ['AC'], `${B}AC${HEX}{32}${E}`),
  rule('sendgrid-key', ['SG.'], `${S}SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}${E}`),
  rule('mailgun-key', ['key-'], `${B}key-${HEX}{32}${E}`),
  rule('mailchimp-key', ['-us'], `(?<![A-Za-z0-9])${HEX}{32}-us[0-9]{1,2}(?![A-Za-z0-9])`),
  rule('telegram-bot-token', [':AA'], `(?<![A-Za-z0-9_:])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}${E}`),
  rule('discord-bot-token', [], `(?<![A-Za-z0-9_.-])[MNO][A-Za-z0-9_-]{23,25}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_.-])`, true),

  // JSON Web Tokens: header and payload are base64 JSON objects (`eyJ` is `{"`).
  rule('jwt', ['eyJ'], `${B}eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}`),
];
