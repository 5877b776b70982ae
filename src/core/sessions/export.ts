/**
 * The one exporter of a conversation, for `medchat sessions export` and `/export` (and `/copy all`)
 * alike: the same conversation gives the same file, byte for byte, whichever wrote it. The whole
 * transcript, every turn word for word (also the turns that were summarised away from what is
 * sent), each fold where it happened, and the summary sent in place of earlier turns; reasoning
 * only when asked for. Markdown to read, JSON with everything (timings, usage, folds) for tools.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describeCompaction } from '../context/context.js';
import { MedchatError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { FileOps } from '../io/file-ops.js';
import { writeUserFile } from '../io/user-file.js';
import { jsonForTerminal } from '../text/sanitize.js';
import type { ChatSession } from './chat-session.js';
import { SESSION_FORMAT, SESSION_VERSION, titleFor, type SessionData, type SessionStore } from './store.js';
import { sessionsText } from '../i18n/messages/sessions.js';

export type ExportFormat = 'md' | 'json';

export interface ExportOptions {
  /** Write each answer's reasoning too. */
  reasoning?: boolean;
}

/** A conversation to export: a saved session, or one that was never saved (incognito, `history off`). */
export interface ExportSource {
  data: SessionData;
  /** false: nothing of it is on disk, so it has no session to name and no time it was saved. */
  saved: boolean;
}

/** Notes in the exported document (a document for other readers, not a message: it stays English). */
const STATUS_NOTE: Record<string, string> = {
  interrupted: 'interrupted: the answer above is partial', // i18n-exempt: the export document, for other readers
  incomplete: 'cut off: the answer above is incomplete', // i18n-exempt: the export document, for other readers
  failed: 'failed',
  pending: 'no answer yet', // i18n-exempt: the export document, for other readers
  streaming: 'interrupted: the answer above is partial', // i18n-exempt: the export document, for other readers
};

function when(ms: number | string | undefined): string {
  if (ms === undefined || ms === 0 || ms === '') return '';
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

const isoOrNull = (ms: number | string | undefined): string | null => {
  if (ms === undefined || ms === 0 || ms === '') return null;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
};

const sourceOf = (s: SessionData | ExportSource): ExportSource => ('data' in s ? s : { data: s, saved: true });

export function sessionToMarkdown(from: SessionData | ExportSource, opts: ExportOptions = {}): string {
  const { data: s, saved } = sourceOf(from);
  const lines: string[] = [];
  lines.push(`# ${s.title || 'medchat conversation'}`, ''); // i18n-exempt: the export document, for other readers
  lines.push(saved ? `- Session: \`${s.id}\`` : '- Session: not saved (incognito, or history is off)'); // i18n-exempt: the export document, for other readers
  lines.push(`- Started: ${when(s.createdAt)}`);
  if (saved) lines.push(`- Last saved: ${when(s.updatedAt)}`); // i18n-exempt: the export document, for other readers
  if (s.model) lines.push(`- Model: ${s.model}`);
  lines.push('');
  if (s.system) lines.push('## System prompt', '', s.system, ''); // i18n-exempt: the export document, for other readers
  const byTurn = new Map<number, string[]>();
  for (const c of s.context.compactions ?? []) {
    const list = byTurn.get(c.throughTurn) ?? [];
    const after = c.method === 'summarise' ? 'the model was sent a summary of the messages above instead of them' : `the messages above were no longer sent to the model${c.quotedFacts?.length ? ', except the lines named' : ''}`; // i18n-exempt: the export document, for other readers
    list.push(`${describeCompaction(c)}. From here on ${after}`); // i18n-exempt: the export document, for other readers
    byTurn.set(c.throughTurn, list);
  }
  s.turns.forEach((t, i) => {
    for (const note of byTurn.get(i) ?? []) lines.push(`> _${note}._`, '');
    lines.push(`## You${t.startedAt ? ` · ${when(t.startedAt)}` : ''}`, '', t.user, '');
    if (opts.reasoning && t.reasoning.trim()) {
      lines.push('<details><summary>Reasoning</summary>', '', t.reasoning.trim(), '', '</details>', '');
    }
    lines.push('## medchat', '');
    if (t.answer) lines.push(t.answer, '');
    const note = t.status !== 'complete' ? STATUS_NOTE[t.status] : undefined;
    if (note) lines.push(`> _(${note}${t.error && t.status === 'failed' ? `: ${t.error}` : ''})_`, '');
  });
  if (s.context.summary?.text) {
    lines.push('---', '', '## Summary sent in place of earlier messages', '', s.context.summary.text, ''); // i18n-exempt: the export document, for other readers
  }
  return lines.join('\n').replace(/\n+$/, '\n');
}

export function sessionToJson(from: SessionData | ExportSource, opts: ExportOptions = {}): string {
  const { data: s, saved } = sourceOf(from);
  const out = {
    id: saved ? s.id : null,
    title: s.title,
    created_at: s.createdAt,
    updated_at: saved ? s.updatedAt : null,
    model: s.model,
    system: s.system ?? null,
    turns: s.turns.map((t) => ({
      user: t.user,
      answer: t.answer,
      ...(opts.reasoning ? { reasoning: t.reasoning } : {}),
      status: t.status,
      started_at: isoOrNull(t.startedAt),
      first_token_ms: t.firstTokenMs ?? null,
      duration_ms: t.durationMs ?? null,
      usage: t.usage ?? null,
      error: t.error ?? null,
    })),
    summary: s.context.summary ? { text: s.context.summary.text, covers_turns: s.context.summary.throughTurn } : null,
    compactions: (s.context.compactions ?? []).map((c) => ({
      method: c.method,
      messages: c.messages,
      before_tokens: c.beforeTokens,
      after_tokens: c.afterTokens,
      after_turn: c.throughTurn,
      at: new Date(c.at).toISOString(),
      ...(c.reason ? { reason: c.reason } : {}),
      ...(c.firstTry ? { first_try: c.firstTry } : {}),
      ...(c.quotedFacts?.length ? { quoted_facts: c.quotedFacts } : {}),
    })),
  };
  // The same JSON value as JSON.stringify, with bidi and C1 controls as \u escapes (safe on a terminal).
  return jsonForTerminal(out, 2) + '\n';
}

export function renderExport(from: SessionData | ExportSource, format: ExportFormat, opts: ExportOptions = {}): string {
  return format === 'json' ? sessionToJson(from, opts) : sessionToMarkdown(from, opts);
}

/** JSON for a file named `*.json`, else Markdown. */
export function formatForFile(file: string): ExportFormat {
  return /\.json$/i.test(file) ? 'json' : 'md';
}

/** `medchat-20261122-143005.md`: where `/export` writes when given no name (local time). */
export function defaultExportName(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `medchat-${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}.md`;
}

/**
 * Writes an export where the user asked (its folder made if missing): 0600 (conversations can
 * hold health details), atomically, never through a symbolic link.
 */
export function writeExport(file: string, text: string, ops?: FileOps): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  } catch (err) {
    throw new MedchatError(sessionsText.cannotCreateExportFolder(path.dirname(file), (err as NodeJS.ErrnoException).code ?? 'error'), ExitCode.usage, 'usage');
  }
  writeUserFile(file, text, ops);
}

/**
 * The open conversation, to export: anything not yet saved is saved first (only that: exporting
 * twice gives the same file), then it is read back as `medchat sessions export` reads it, so the
 * two give the same file. A conversation that is not being saved (incognito,
 * `history off`, or its file could not be written) is exported as it is held.
 */
export function exportSourceFor(session: ChatSession, store: SessionStore): ExportSource {
  if (session.persistent && !session.saveError) {
    session.close(); // writes only what is pending
    if (!session.saveError) {
      try {
        return { data: store.load(session.id), saved: true };
      } catch {
        // unreadable now: what is held here is the conversation
      }
    }
  }
  const turns = session.conversation.turns;
  const first = turns[0];
  const data: SessionData = {
    format: SESSION_FORMAT,
    version: SESSION_VERSION,
    id: session.id,
    title: first ? titleFor(first.user) : '',
    createdAt: isoOrNull(first?.startedAt) ?? new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    model: session.settings.model,
    ...(session.conversation.system ? { system: session.conversation.system } : {}),
    turns: turns.map((t) => ({ ...t })),
    context: session.context.state,
  };
  return { data, saved: false };
}
