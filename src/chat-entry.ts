import { settingsFlags, warnAboutKeyFlag, type ChatFlags } from './cli-options.js';
import type { ScriptFlags } from './commands/script-options.js';
import { ConfigStore } from './core/config-store.js';
import { usageError } from './core/errors.js';
import { resolveSettings, type Settings } from './core/settings.js';
import { readStdinText, stdinLimitFor } from './core/stdin.js';
import { isTty } from './core/terminal.js';
import { refuseFilesThatCannotFit } from './core/inputs/fit.js';
import { readInputFiles } from './core/inputs/files.js';
import { plannerForFlags } from './core/request-plan.js';
import { currentRoleSettings } from './core/roles/active.js';
import { nothingToAskError, runOneShot } from './oneshot.js';
import { resolvePrivacy, type PrivacyFlags } from './commands/privacy-options.js';

/** `medchat [prompt]`: decide between one-shot and the chat screen, resolve settings, run. */
export async function runChatEntry(words: string[], o: ChatFlags & ScriptFlags & PrivacyFlags): Promise<number> {
  if (o.json && o.jsonl) throw usageError('choose one of --json and --jsonl');
  const files = o.file ?? [];
  if (o.schema !== undefined && o.jsonl) throw usageError('--schema prints one JSON value at the end; it cannot stream with --jsonl (use --json)');
  const positional = words.length ? words.join(' ') : undefined;
  if (positional !== undefined && o.prompt !== undefined) throw usageError('give the prompt once: either -p "…" or as an argument');
  const prompt = o.prompt ?? positional;
  const stdinAsFile = files.includes('-');
  if (stdinAsFile && o.stdin === false) throw usageError('-f - reads stdin, which --no-stdin ignores; choose one');
  const stdinPiped = o.stdin !== false && !isTty(process.stdin) && !stdinAsFile;
  const interactive = prompt === undefined && !stdinPiped && files.length === 0 && isTty(process.stdin) && isTty(process.stdout);
  if (interactive && o.schema !== undefined) throw usageError('--schema works for one question: pass it, e.g. medchat --schema … "…", or pipe text in');

  if (o.continue && o.resume !== undefined) throw usageError('choose one of --continue and --resume');
  const resume = o.resume !== undefined ? o.resume : o.continue ? 'latest' : undefined;
  if (resume !== undefined && !resume.trim()) throw usageError('--resume needs a session id (see medchat sessions list)');

  warnAboutKeyFlag(o);
  const store = new ConfigStore();
  // Roles, the schema and the settings they change: one request plan for every mode (request-plan.ts).
  let resolved!: Settings;
  const { planner, role } = await plannerForFlags(o, () => (resolved = resolveSettings({ flags: settingsFlags(o), store })));
  const settings = planner.settings;
  const privacy = resolvePrivacy(o, store);
  const incognito = Boolean(o.incognito);
  const { ChatSession } = await import('./core/sessions/chat-session.js');

  if (interactive) {
    // The chat screen opens the session itself (ChatSession.open with these); check the id first.
    let resumeId: string | undefined;
    if (resume !== undefined) resumeId = ChatSession.open(settings, { resume, incognito }).id;
    const uiOptions = { system: planner.system, resume: resumeId, incognito, privacy, ...(role ? { role: { name: role.name, base: currentRoleSettings(resolved, o.system) } } : {}) };
    const { runInteractive } = await import('./ui/run-interactive.js');
    return runInteractive(settings, uiOptions);
  }
  // Opening writes nothing (a bad --resume is reported before waiting on a slow pipe); stdin is
  // read, bounded in bytes, before the question is saved, so a refused stdin leaves no trace.
  const session = ChatSession.open(settings, { system: planner.system, resume, incognito });
  const maxBytes = stdinLimitFor(settings.contextWindow);
  const fileInputs = await readInputFiles(files, { maxBytes, stdinIsTerminal: isTty(process.stdin) });
  const stdinText = stdinPiped ? await readStdinText(process.stdin, maxBytes) : undefined;
  if (prompt === undefined && !stdinText?.trim() && fileInputs.length === 0) {
    if (role) throw usageError(`role ${role.name} needs text to work on: pipe it in or name a file, e.g. medchat -r ${role.name} < notes.txt`);
    throw nothingToAskError(isTty(process.stdout) || isTty(process.stdin));
  }
  const plan = planner.plan({ prompt, stdin: stdinText, files: fileInputs });
  await refuseFilesThatCannotFit(plan.messages, plan.files, settings);
  return runOneShot(
    settings,
    { userText: plan.userText, system: plan.system, stream: o.stream !== false, json: Boolean(o.json), jsonl: Boolean(o.jsonl), reasoning: o.reasoning ?? 'show', session, plan, privacy },
    { stdout: process.stdout, stderr: process.stderr },
  );
}
