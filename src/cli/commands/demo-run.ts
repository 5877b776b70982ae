import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Settings } from '../../core/config/settings.js';
import { composeQuestion } from '../../core/request/inputs/blocks.js';
import { MAX_INPUT_BYTES } from '../../core/io/stdin.js';
import { decideEntry, readQuestion } from '../entry-decision.js';
import { runOneShot } from '../oneshot.js';
import { samplePng } from '../../demo/demo-retexture.js';
import { startDemoService } from '../../demo/demo-service.js';
import { screenReaderMode } from '../screen-reader-mode.js';

export const DEMO_MODEL = 'medchat-demo';

export interface DemoFlags {
  prompt?: string;
  think?: boolean;
  json?: boolean;
  jsonl?: boolean;
  reasoning: 'show' | 'hide';
  fast?: boolean;
  /** `--screen-reader` / `--no-screen-reader` (cli/screen-reader-mode.ts). */
  screenReader?: boolean;
}

/** Settings for the demo: fixed, never read from the user's config or environment. */
function demoSettings(baseUrl: string, thinking: boolean): Settings {
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
  // The same decision `medchat` makes (cli/entry-decision.ts): output, question, stdin, chat screen or not.
  const entry = decideEntry(words, o);
  const interactive = entry.interactive;

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
      if (screenReaderMode(o.screenReader)) {
        const { runLinear } = await import('../../ui/linear/run-linear.js');
        return await runLinear(settings, { incognito: true, demo: true });
      }
      const { runInteractive } = await import('../../ui/run-interactive.js');
      return await runInteractive(settings, { incognito: true, demo: true });
    }
    // Read and composed as `medchat` does it: files, then piped text, then the question.
    const question = await readQuestion(entry, { maxBytes: MAX_INPUT_BYTES });
    return await runOneShot(
      settings,
      { userText: composeQuestion(question), stream: true, json: entry.output === 'json', jsonl: entry.output === 'jsonl', reasoning: o.reasoning },
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
