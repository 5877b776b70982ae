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
    const { EnvHttpProxyAgent, fetch: undiciFetch } = await import('undici');
    const dispatcher = new EnvHttpProxyAgent();
    return ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
      undiciFetch(input as never, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
  })();
  return cached;
}
