import { settingsFlags, warnAboutKeyFlag, type ChatFlags } from './cli.js';
import { ConfigStore } from './core/config-store.js';
import { usageError } from './core/errors.js';
import { resolveSettings } from './core/settings.js';
import { readStdinText, stdinLimitFor } from './core/stdin.js';
import { isTty } from './core/terminal.js';
import { composeUserText, nothingToAskError, runOneShot } from './oneshot.js';
import { resolvePrivacy, type PrivacyFlags } from './commands/privacy-options.js';

/** `medchat [prompt]`: decide between one-shot and the chat screen, resolve settings, run. */
export async function runChatEntry(words: string[], o: ChatFlags & PrivacyFlags): Promise<number> {
  if (o.json && o.jsonl) throw usageError('choose one of --json and --jsonl');
  const positional = words.length ? words.join(' ') : undefined;
  if (positional !== undefined && o.prompt !== undefined) throw usageError('give the prompt once: either -p "…" or as an argument');
  const prompt = o.prompt ?? positional;
  const stdinPiped = o.stdin !== false && !isTty(process.stdin);
  const interactive = prompt === undefined && !stdinPiped && isTty(process.stdin) && isTty(process.stdout);

  if (o.continue && o.resume !== undefined) throw usageError('choose one of --continue and --resume');
  const resume = o.resume !== undefined ? o.resume : o.continue ? 'latest' : undefined;
  if (resume !== undefined && !resume.trim()) throw usageError('--resume needs a session id (see medchat sessions list)');

  warnAboutKeyFlag(o);
  const store = new ConfigStore();
  const settings = resolveSettings({ flags: settingsFlags(o), store });
  const privacy = resolvePrivacy(o, store);
  const incognito = Boolean(o.incognito);
  const { ChatSession } = await import('./core/sessions/chat-session.js');

  if (interactive) {
    // The chat screen opens the session itself (ChatSession.open with these); check the id first.
    let resumeId: string | undefined;
    if (resume !== undefined) resumeId = ChatSession.open(settings, { resume, incognito }).id;
    const uiOptions = { system: o.system, resume: resumeId, incognito };
    const { runInteractive } = await import('./ui/run-interactive.js');
    return runInteractive(settings, uiOptions);
  }
  // Opening writes nothing (a bad --resume is reported before waiting on a slow pipe); stdin is
  // read, bounded in bytes, before the question is saved, so a refused stdin leaves no trace.
  const session = ChatSession.open(settings, { system: o.system, resume, incognito });
  const stdinText = stdinPiped ? await readStdinText(process.stdin, stdinLimitFor(settings.contextWindow)) : undefined;
  if (prompt === undefined && !stdinText?.trim()) {
    throw nothingToAskError(isTty(process.stdout) || isTty(process.stdin));
  }
  const userText = composeUserText(prompt, stdinText);
  return runOneShot(
    settings,
    { userText, system: o.system, stream: o.stream !== false, json: Boolean(o.json), jsonl: Boolean(o.jsonl), reasoning: o.reasoning ?? 'show', session, privacy },
    { stdout: process.stdout, stderr: process.stderr },
  );
}
