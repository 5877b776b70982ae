/**
 * Proxy settings (HTTPS_PROXY / HTTP_PROXY / NO_PROXY) and the fetch that honours them.
 * NODE_EXTRA_CA_CERTS is read by Node itself and applies either way.
 */
let cached: Promise<typeof fetch> | undefined;

export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy);
}

/**
 * The fetch for the service and image downloads: node:http / node:https (src/core/http-transport.ts),
 * which applies HTTPS_PROXY / HTTP_PROXY / NO_PROXY itself as curl does (absolute-URI requests for
 * `http://`, one CONNECT tunnel per request for `https://`, no reconnect loop when a proxy refuses).
 */
export function getFetch(): Promise<typeof fetch> {
  cached ??= import('./http-transport.js').then(({ httpFetch }) => ((input: Parameters<typeof fetch>[0], init?: RequestInit) => httpFetch(input, init)) as typeof fetch);
  return cached;
}

/**
 * The proxy a request to `url` goes through under HTTPS_PROXY / HTTP_PROXY / NO_PROXY (the rules
 * curl and undici's EnvHttpProxyAgent apply), or undefined when it goes direct. Used to name the proxy
 * when it is the thing that failed.
 */
export function proxyFor(url: string, env: NodeJS.ProcessEnv = process.env): URL | undefined {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return undefined;
  }
  const raw = target.protocol === 'https:' ? env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy : env.HTTP_PROXY || env.http_proxy;
  if (!raw) return undefined;
  const noProxy = (env.NO_PROXY ?? env.no_proxy ?? '').split(/[,\s]+/).filter(Boolean);
  const host = target.hostname.toLowerCase();
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  for (const entry of noProxy) {
    if (entry === '*') return undefined;
    const [h, p] = entry.toLowerCase().replace(/^\*?\./, '.').split(/:(?=\d+$)/);
    if (p && p !== port) continue;
    if (h === host || (h!.startsWith('.') && (host.endsWith(h!) || host === h!.slice(1)))) return undefined;
  }
  try {
    return new URL(/^\w+:\/\//.test(raw) ? raw : `http://${raw}`);
  } catch {
    return undefined;
  }
}
