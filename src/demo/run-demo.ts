import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { usageError } from '../core/errors.js';
import type { Settings } from '../core/settings.js';
import { readStdinText } from '../core/stdin.js';
import { isTty } from '../core/terminal.js';
import { composeUserText, nothingToAskError, runOneShot } from '../oneshot.js';
import { samplePng } from './demo-retexture.js';
import { startDemoService } from './demo-service.js';

export const DEMO_MODEL = 'medchat-demo';

export interface DemoFlags {
  prompt?: string;
  think?: boolean;
  json?: boolean;
  jsonl?: boolean;
  reasoning?: string;
  fast?: boolean;
}

/** Settings for the demo: fixed, never read from the user's config or environment. */
export function demoSettings(baseUrl: string, thinking: boolean): Settings {
  return {
    baseUrl,
    apiKey: 'demo-key-not-secret',
    model: DEMO_MODEL,
    maxTokens: 8192,
    thinking,
    idleTimeoutMs: 120_000,
    contextWindow: 131072,
    compressAt: 0.8,
    compress: 'summarise',
    history: false,
    disclaimer: true,
  };
}

export async function runDemo(words: string[], o: DemoFlags): Promise<number> {
  if (o.json && o.jsonl) throw usageError('choose one of --json and --jsonl');
  if (o.reasoning !== 'show' && o.reasoning !== 'hide') throw usageError('--reasoning must be show or hide');
  const positional = words.length ? words.join(' ') : undefined;
  const prompt = o.prompt ?? positional;
  const stdinPiped = !isTty(process.stdin);
  const interactive = prompt === undefined && !stdinPiped && isTty(process.stdout);

  // Anything the program would write (prompt history, sessions) goes to a folder that is removed at the end.
  const sandbox = fs.mkdtempSync(path.join(os.tmpdir(), 'medchat-demo-'));
  const saved = { data: process.env.MEDCHAT_DATA_DIR, config: process.env.MEDCHAT_CONFIG_DIR };
  process.env.MEDCHAT_DATA_DIR = path.join(sandbox, 'data');
  process.env.MEDCHAT_CONFIG_DIR = path.join(sandbox, 'config');
  const service = await startDemoService(o.fast ? { paceMs: 0, firstContentDelayMs: 0 } : {});
  // The chat screen's `/retexture demo.png …` finds the sample picture in the sandbox.
  fs.writeFileSync(path.join(sandbox, 'demo.png'), samplePng());
  const cwd = process.cwd();
  if (interactive) process.chdir(sandbox);
  try {
    const settings = demoSettings(service.url, o.think !== false);
    if (interactive) {
      const { runInteractive } = await import('../ui/run-interactive.js');
      return await runInteractive(settings, { incognito: true, demo: true });
    }
    const stdinText = stdinPiped ? await readStdinText() : undefined;
    // As `medchat` itself: with no question and nothing piped in, say what to do instead of answering something.
    const userText = composeUserText(prompt, stdinText);
    if (!userText.trim()) throw nothingToAskError(isTty(process.stdout) || isTty(process.stdin));
    return await runOneShot(
      settings,
      { userText, stream: true, json: Boolean(o.json), jsonl: Boolean(o.jsonl), reasoning: o.reasoning },
      { stdout: process.stdout, stderr: process.stderr },
    );
  } finally {
    process.chdir(cwd);
    await service.close();
    fs.rmSync(sandbox, { recursive: true, force: true });
    if (saved.data === undefined) delete process.env.MEDCHAT_DATA_DIR;
    else process.env.MEDCHAT_DATA_DIR = saved.data;
    if (saved.config === undefined) delete process.env.MEDCHAT_CONFIG_DIR;
    else process.env.MEDCHAT_CONFIG_DIR = saved.config;
  }
}
