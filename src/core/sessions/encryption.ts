/**
 * Whether history is written encrypted, and the vault (keyring + master key) of a data folder,
 * from the settings: `encrypt` (true when the policy requires it: resolveValue applies the policy)
 * and `history-key-command`.
 */
import path from 'node:path';
import { ConfigStore } from '../config/config-store.js';
import { dataDir } from '../config/paths.js';
import { resolveValue } from '../config/settings.js';
import type { FileOps } from '../io/file-ops.js';
import { HistoryVault } from './history-crypto.js';

export function encryptionOn(env: NodeJS.ProcessEnv = process.env): boolean {
  return resolveValue('encrypt', { store: new ConfigStore(env), env }) === true;
}

/** The vault of `folder` (the data folder), finding its master key from the settings when first needed. */
export function vaultFor(folder: string = dataDir(), opts: { ops?: FileOps; lockWaitMs?: number; env?: NodeJS.ProcessEnv } = {}): HistoryVault {
  const env = opts.env ?? process.env;
  return new HistoryVault(path.resolve(folder), {
    ops: opts.ops,
    lockWaitMs: opts.lockWaitMs,
    context: () => {
      const command = resolveValue('history-key-command', { store: new ConfigStore(env), env });
      return {
        env,
        command: typeof command === 'string' && command.trim() ? command : undefined,
        canAsk: Boolean(process.stdin.isTTY && process.stderr.isTTY),
      };
    },
  });
}
