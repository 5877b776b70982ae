import { MedchatError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import type { Settings } from '../core/settings.js';

/** Opens the chat screen (Ink). Loaded only when the chat screen opens. */
export async function runInteractive(_settings: Settings, _opts: { system?: string }): Promise<number> {
  throw new MedchatError('the chat screen is not available yet; ask a question directly: medchat "…"', ExitCode.usage);
}
