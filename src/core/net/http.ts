/**
 * Proxy settings (HTTPS_PROXY / HTTP_PROXY / NO_PROXY) and the fetch that honours them.
 * NODE_EXTRA_CA_CERTS is read by Node itself and applies either way.
 */
let cached: Promise<typeof fetch> | undefined;

export { proxyConfigured, proxyFor } from './proxy-env.js';

/**
 * The fetch for the service and image downloads: node:http / node:https (src/core/net/http-transport.ts),
 * which applies HTTPS_PROXY / HTTP_PROXY / NO_PROXY itself as curl does (absolute-URI requests for
 * `http://`, one CONNECT tunnel per request for `https://`, no reconnect loop when a proxy refuses).
 */
export function getFetch(): Promise<typeof fetch> {
  cached ??= import('./http-transport.js').then(({ httpFetch }) => ((input: Parameters<typeof fetch>[0], init?: RequestInit) => httpFetch(input, init)) as typeof fetch);
  return cached;
}
