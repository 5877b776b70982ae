import { usageError } from '../../core/errors.js';
import { jsonForTerminal, sanitizeForTerminal, sanitizeLine } from '../../core/text/sanitize.js';
import { formatForFile, renderExport, sessionToMarkdown, writeExport } from '../../core/sessions/export.js';
import { SessionStore } from '../../core/sessions/store.js';
import { isTty } from '../../core/io/terminal.js';
import { formatListTime } from '../../core/text/format.js';

/**
 * Saved text goes to stdout as it was saved when stdout is a pipe or a file (a transcript stays
 * exact), and through the terminal sanitizer when it is a terminal: escape sequences, controls and
 * bidi overrides from a saved answer are shown, never obeyed.
 */
const print = (text: string) => process.stdout.write(isTty(process.stdout) ? sanitizeForTerminal(text) : text);

export async function sessionsList(o: { json?: boolean }): Promise<number> {
  const store = new SessionStore();
  store.prepare();
  const list = store.list();
  if (o.json) {
    print(
      jsonForTerminal(
        list.map((s) => ({ id: s.id, title: s.title, created_at: s.createdAt, updated_at: s.updatedAt, turns: s.turns, file: s.file })),
        2,
      ) + '\n',
    );
    return 0;
  }
  if (list.length === 0) {
    process.stderr.write(`no saved conversations (in ${sanitizeLine(store.dir)})\n`);
    return 0;
  }
  for (const s of list) {
    const turns = `${s.turns} ${s.turns === 1 ? 'turn ' : 'turns'}`;
    print(`${s.id}  ${formatListTime(s.updatedAt).padEnd(16)}  ${turns.padStart(9)}  ${s.title}\n`);
  }
  return 0;
}

export async function sessionsShow(ref: string, o: { reasoning?: boolean }): Promise<number> {
  const store = new SessionStore();
  store.prepare();
  const data = store.load(store.resolve(ref));
  print(sessionToMarkdown(data, { reasoning: Boolean(o.reasoning) }));
  return 0;
}

export async function sessionsExport(ref: string, o: { format?: string; output?: string; reasoning?: boolean }): Promise<number> {
  const asked = (o.format ?? (o.output ? formatForFile(o.output) : 'md')).toLowerCase();
  if (asked !== 'md' && asked !== 'markdown' && asked !== 'json') throw usageError(`--format must be md or json (got "${o.format}")`);
  const format = asked === 'json' ? 'json' : 'md';
  const store = new SessionStore();
  store.prepare();
  const data = store.load(store.resolve(ref));
  const text = renderExport(data, format, { reasoning: Boolean(o.reasoning) });
  if (o.output && o.output !== '-') {
    writeExport(o.output, text);
    process.stderr.write(`exported ${data.id} to ${o.output}\n`);
    return 0;
  }
  print(text);
  return 0;
}

export async function sessionsRm(ids: string[], o: { all?: boolean }): Promise<number> {
  const store = new SessionStore();
  if (o.all) {
    if (ids.length) throw usageError('give either session ids or --all, not both');
    const n = store.removeAll();
    process.stderr.write(`deleted ${n} saved ${n === 1 ? 'conversation' : 'conversations'}\n`);
    return 0;
  }
  if (ids.length === 0) throw usageError('name the sessions to delete (see medchat sessions list), or use --all');
  const resolved = ids.map((r) => store.resolve(r));
  for (const id of resolved) store.remove(id);
  process.stderr.write(`deleted ${resolved.length} saved ${resolved.length === 1 ? 'conversation' : 'conversations'}\n`);
  return 0;
}

export async function sessionsPath(): Promise<number> {
  print(new SessionStore().dir + '\n');
  return 0;
}
