import { isPlaceholder, looksRandom, marker } from './common.js';

/** Passwords in URLs (`scheme://user:PASSWORD@host` keeps user and host) and Authorization / Bearer tokens. */

const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]{0,30}:\/\/)([^\s:/@]{0,256}):([^\s/@]{1,256})@/gi;

export function redactUrlPasswords(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(URL_CREDENTIALS, (match, scheme: string, user: string, password: string) =>
    isPlaceholder(password) ? match : `${scheme}${user}:${marker('password')}@`,
  );
}

const TOKEN_CHARS = '[A-Za-z0-9._~+/=-]{8,4096}';
const AUTH_HEADER = new RegExp(
  `(\\bAuthorization["']?[ \\t]*[:=][ \\t]*["']?)(?:(Bearer|Basic|Token|Bot|Digest)[ \\t]+)?(${TOKEN_CHARS})`,
  'gi',
);
const BEARER = new RegExp(`(\\bBearer[ \\t]+)(${TOKEN_CHARS})`, 'g');

export function redactAuthorization(text: string): string {
  let out = text;
  if (/authorization/i.test(out)) {
    out = out.replace(AUTH_HEADER, (match, prefix: string, scheme: string | undefined, token: string) => {
      // With a scheme the header context is strong enough; a bare value must look generated.
      if (isPlaceholder(token) || (scheme === undefined && !looksRandom(token))) return match;
      return `${prefix}${scheme ? `${scheme} ` : ''}${marker('bearer')}`;
    });
  }
  if (out.includes('Bearer')) {
    out = out.replace(BEARER, (match, prefix: string, token: string) =>
      isPlaceholder(token) || !looksRandom(token) ? match : `${prefix}${marker('bearer')}`,
    );
  }
  return out;
}
