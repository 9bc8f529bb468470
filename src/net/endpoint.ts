import { MoonError } from '../errors.js';
import { labelUrl } from './http.js';

export interface ResolvedEndpoint {
  /** Where requests go. */
  url: URL;
  /** host + path of the API root, e.g. `127.0.0.1:11434/v1`: the same whether or not the version was written. */
  fingerprint: string;
  /** For messages: origin + path, never credentials or query. */
  label: string;
}

export interface EndpointSpec {
  /** The config key the base URL came from, for messages: `embed.base_url`, `distill.base_url`. */
  configKey: string;
  /** The API's version segment: `/v1`, `/v1beta`. */
  version: string;
  /** The operation under the version root: `/embeddings`, `/chat/completions`, `/models/m:generateContent`. */
  operation: string;
}

/**
 * A base URL written any of the usual ways → the operation's URL. `http://h:1`, `http://h:1/` and `http://h:1/v1`
 * all mean `http://h:1/v1<operation>`; a URL that already ends in the operation is used as is; a path before the
 * version (a proxy's prefix) is kept, and so is the query string (some gateways want one).
 */
export function resolveEndpoint(baseUrl: string, spec: EndpointSpec): ResolvedEndpoint {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new MoonError('bad_config', `${spec.configKey} is not a URL: "${baseUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new MoonError('bad_config', `${spec.configKey} must be an http(s) URL, got "${url.protocol}"`);
  }
  let path = url.pathname.replace(/\/+$/u, '');
  let root: string;
  if (path.endsWith(spec.operation)) {
    root = path.slice(0, -spec.operation.length);
  } else {
    root = path.endsWith(spec.version) ? path : `${path}${spec.version}`;
    path = `${root}${spec.operation}`;
  }
  const endpoint = new URL(url.href);
  endpoint.pathname = path;
  endpoint.hash = '';
  return { url: endpoint, fingerprint: `${url.host}${root}`, label: labelUrl(endpoint) };
}
