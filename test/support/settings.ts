import type { Settings } from '../../src/core/config/settings.js';

/** Resolved settings for a test against the double at `baseUrl`: the defaults, then `over`. */
export function testSettings(baseUrl: string, over: Partial<Settings> = {}): Settings {
  return {
    baseUrl,
    apiKey: 'sk-test-tui',
    model: 'medical-large-latest',
    maxTokens: 8192,
    thinking: true,
    idleTimeoutMs: 5000,
    contextWindow: 131072,
    compressAt: 0.8,
    compress: 'summarise',
    history: false,
    disclaimer: true,
    ...over,
  };
}
