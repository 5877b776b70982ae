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

const summary = (r: { sessions: number; prompts: boolean }) => historyTouched(r) || 'nothing saved yet';

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
    const done = r.sessions || r.prompts ? `encrypted ${summary(r)}` : 'history will be saved encrypted';
    process.stderr.write(`${done}; data keys in ${sanitizeLine(sessions.vault.keyringFile)}, wrapped by ${source ? SOURCE_LABEL[source] : 'the master key'}\n`);
    return;
  }
  const policy = activePolicy();
  if (policy.encrypt) throw usageError(`encrypt is on by your organisation's policy (${policy.file ?? 'the policy file'}); history stays encrypted`);
  const sealed = sessions.sealedCount();
  if (sealed.sessions === 0 && !sealed.prompts) {
    storeSetting();
    return;
  }
  const what = summary(sealed);
  if (!o.yes) {
    if (!(process.stdin.isTTY && process.stderr.isTTY)) {
      throw usageError(`turning encryption off writes ${what} back as plain text; to do so, run: medchat config set encrypt off --yes`);
    }
    if (!(await confirm(`Decrypt ${what} and store them as plain text? [y/N] `))) throw usageError('encryption left on; nothing was changed');
  }
  const r = sessions.decryptAll();
  storeSetting();
  process.stderr.write(`decrypted ${summary(r)}; their keys were destroyed\n`);
}
