/**
 * `medchat config set encrypt on|off`: turning encryption on makes the key (or finds it) before the
 * setting is stored, then encrypts the saved conversations and the prompt history; turning it off
 * asks first (y/N on a terminal; without one, only with --yes), decrypts them back, then stores it.
 */
import { createInterface } from 'node:readline/promises';
import { activePolicy } from '../../core/config/policy.js';
import { usageError } from '../../core/errors.js';
import { SOURCE_LABEL } from '../../core/sessions/master-key.js';
import { SessionStore } from '../../core/sessions/store.js';
import { historyTouched } from '../../core/text/format.js';
import { sanitizeLine } from '../../core/text/sanitize.js';
import { cliConfigText } from '../../core/i18n/messages/cli-config.js';

const summary = (r: { sessions: number; prompts: boolean }) => historyTouched(r) || cliConfigText.nothingSaved;

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

/** Switch encrypted history on or off; `store` stores the setting (called once the history is ready for it). */
export async function switchEncryption(on: boolean, o: { yes?: boolean }, storeSetting: () => void): Promise<void> {
  const sessions = new SessionStore(undefined, { encrypt: on });
  if (on) {
    sessions.vault.master(true); // no key source: one line, exit 2, nothing stored
    storeSetting();
    const r = sessions.encryptAll();
    const source = sessions.vault.source();
    const done = r.sessions || r.prompts ? cliConfigText.encrypted(summary(r)) : cliConfigText.willBeEncrypted;
    process.stderr.write(`${cliConfigText.encryptedDone(done, sanitizeLine(sessions.vault.keyringFile), source ? SOURCE_LABEL[source] : cliConfigText.theMasterKey)}\n`);
    return;
  }
  const policy = activePolicy();
  if (policy.encrypt) throw usageError(cliConfigText.encryptLocked(policy.file ?? cliConfigText.thePolicyFile));
  const sealed = sessions.sealedCount();
  if (sealed.sessions === 0 && !sealed.prompts) {
    storeSetting();
    return;
  }
  const what = summary(sealed);
  if (!o.yes) {
    if (!(process.stdin.isTTY && process.stderr.isTTY)) {
      throw usageError(cliConfigText.offNeedsYes(what));
    }
    if (!(await confirm(cliConfigText.confirmDecrypt(what)))) throw usageError(cliConfigText.leftOn);
  }
  const r = sessions.decryptAll();
  storeSetting();
  process.stderr.write(`${cliConfigText.decrypted(summary(r))}\n`);
}
