import { settingsFlags, warnAboutKeyFlag, type ChatFlags } from './options.js';
import type { ScriptFlags } from './commands/script-options.js';
import { ConfigStore } from '../core/config/config-store.js';
import { usageError } from '../core/errors.js';
import { assertSessionOptionsAllowed, resolveSettings, resolveValue, type Settings } from '../core/config/settings.js';
import { MAX_INPUT_BYTES } from '../core/io/stdin.js';
import { plannerForFlags } from '../core/request/request-plan.js';
import { currentRoleSettings } from '../core/request/roles/active.js';
import { runOneShot } from './oneshot.js';
import { decideEntry, readQuestion } from './entry-decision.js';
import type { PrivacyFlags } from './commands/privacy-options.js';
import { resolvePrivacy } from '../core/privacy/choice.js';
import { cliText } from '../core/i18n/messages/cli.js';
import { screenReaderMode } from './screen-reader-mode.js';

/** `medchat [prompt]`: decide between one-shot and the chat screen, resolve settings, run. */
export async function runChatEntry(words: string[], o: ChatFlags & ScriptFlags & PrivacyFlags): Promise<number> {
  // The same decision `medchat demo` makes (cli/entry-decision.ts).
  const entry = decideEntry(words, o);

  if (o.continue && o.resume !== undefined) throw usageError(cliText.continueOrResume);
  const resume = o.resume !== undefined ? o.resume : o.continue ? 'latest' : undefined;
  if (resume !== undefined && !resume.trim()) throw usageError(cliText.resumeNeedsId);

  assertSessionOptionsAllowed({ incognito: o.incognito, resume: resume !== undefined });
  warnAboutKeyFlag(o);
  const store = new ConfigStore();
  // First, so a --privacy the organisation policy refuses is the first thing said.
  const privacy = resolvePrivacy(o, store);
  // Roles, the schema and the settings they change: one request plan for every mode (request-plan.ts).
  let resolved!: Settings;
  const { planner, role } = await plannerForFlags(o, () => (resolved = resolveSettings({ flags: settingsFlags(o), store })));
  const settings = planner.settings;
  const incognito = Boolean(o.incognito);
  const { ChatSession } = await import('../core/sessions/chat-session.js');
  // retention-days: conversations older than that are deleted first, with one line saying so.
  if (settings.history && !incognito && resolveValue('retention-days', { store, env: process.env }) !== undefined) {
    const { sweepExpiredSessions } = await import('./commands/sessions-actions.js');
    sweepExpiredSessions(store);
  }

  if (entry.interactive) {
    // The chat screen opens the session itself (ChatSession.open with these); check the id first.
    let resumeId: string | undefined;
    if (resume !== undefined) resumeId = ChatSession.open(settings, { resume, incognito }).id;
    const uiOptions = { system: planner.system, resume: resumeId, incognito, privacy, ...(role ? { role: { name: role.name, base: currentRoleSettings(resolved, o.system) } } : {}) };
    if (screenReaderMode(o.screenReader, store)) {
      const { runLinear } = await import('../ui/linear/run-linear.js');
      return runLinear(settings, uiOptions);
    }
    const { runInteractive } = await import('../ui/run-interactive.js');
    return runInteractive(settings, uiOptions);
  }
  // Opening writes nothing (a bad --resume is reported before waiting on a slow pipe); stdin is
  // read, bounded in bytes, before the question is saved, so a refused stdin leaves no trace.
  const session = ChatSession.open(settings, { system: planner.system, resume, incognito, role: role?.name });
  const question = await readQuestion(entry, { maxBytes: MAX_INPUT_BYTES, role: role?.name });
  const plan = planner.plan(question);
  return runOneShot(
    settings,
    { userText: plan.question, system: plan.system, stream: o.stream !== false, json: entry.output === 'json', jsonl: entry.output === 'jsonl', reasoning: o.reasoning ?? 'show', session, plan, privacy },
    { stdout: process.stdout, stderr: process.stderr },
  );
}

