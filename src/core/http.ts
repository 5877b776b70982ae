/**
 * The fetch every request goes through. Node's own fetch ignores HTTPS_PROXY / HTTP_PROXY /
 * NO_PROXY, so when one is set, undici's EnvHttpProxyAgent is loaded (only then) and used.
 * NODE_EXTRA_CA_CERTS is read by Node itself and applies either way.
 */
let cached: Promise<typeof fetch> | undefined;

export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy);
}

export function getFetch(): Promise<typeof fetch> {
  cached ??= (async () => {
    if (!proxyConfigured()) return globalThis.fetch;
    // Bundled, undici (CommonJS) arrives as `default` only; under tsx/Node it has named exports too.
    const mod = (await import('undici')) as typeof import('undici') & { default?: typeof import('undici') };
    const { EnvHttpProxyAgent, fetch: undiciFetch } = mod.EnvHttpProxyAgent ? mod : mod.default!;
    const dispatcher = new EnvHttpProxyAgent();
    return ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
      undiciFetch(input as never, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
  })();
  return cached;
}

/**
 * The proxy a request to `url` goes through under HTTPS_PROXY / HTTP_PROXY / NO_PROXY (the rules
 * undici's EnvHttpProxyAgent applies), or undefined when it goes direct. Used to name the proxy
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
