/**
 * What the proxy variables (HTTPS_PROXY / HTTP_PROXY / NO_PROXY) say, for the transport that
 * applies them and the error messages that name the proxy. No I/O: http.ts and http-transport.ts
 * both sit above this.
 */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy);
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
