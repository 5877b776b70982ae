import { describeCompaction } from '../context.js';
import { jsonForTerminal } from '../sanitize.js';
import type { SessionData } from './store.js';

/**
 * Exports of a saved session: the whole transcript, every turn word for word (also the turns
 * that were summarised away from what is sent), reasoning only when asked for.
 */
export interface ExportOptions {
  reasoning?: boolean;
}

const STATUS_NOTE: Record<string, string> = {
  interrupted: 'interrupted: the answer above is partial',
  incomplete: 'cut off: the answer above is incomplete',
  failed: 'failed',
  pending: 'no answer yet',
  streaming: 'interrupted: the answer above is partial',
};

function when(ms: number | string | undefined): string {
  if (ms === undefined || ms === 0 || ms === '') return '';
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

export function sessionToMarkdown(s: SessionData, opts: ExportOptions = {}): string {
  const lines: string[] = [];
  lines.push(`# ${s.title || 'medchat conversation'}`, '');
  lines.push(`- Session: \`${s.id}\``);
  lines.push(`- Started: ${when(s.createdAt)}`);
  lines.push(`- Last saved: ${when(s.updatedAt)}`);
  if (s.model) lines.push(`- Model: ${s.model}`);
  lines.push('');
  if (s.system) lines.push('## System prompt', '', s.system, '');
  const byTurn = new Map<number, string[]>();
  for (const c of s.context.compactions ?? []) {
    const list = byTurn.get(c.throughTurn) ?? [];
    const after = c.method === 'summarise' ? 'the model was sent a summary of the messages above instead of them' : `the messages above were no longer sent to the model${c.quotedFacts?.length ? ', except the lines named' : ''}`;
    list.push(`${describeCompaction(c)}. From here on ${after}`);
    byTurn.set(c.throughTurn, list);
  }
  s.turns.forEach((t, i) => {
    for (const note of byTurn.get(i) ?? []) lines.push(`> _${note}._`, '');
    lines.push(`## You${t.startedAt ? ` · ${when(t.startedAt)}` : ''}`, '', t.user, '');
    if (opts.reasoning && t.reasoning) {
      lines.push('<details><summary>Reasoning</summary>', '', t.reasoning, '', '</details>', '');
    }
    lines.push('## medchat', '');
    if (t.answer) lines.push(t.answer, '');
    const note = t.status !== 'complete' ? STATUS_NOTE[t.status] : undefined;
    if (note) lines.push(`> _(${note}${t.error && t.status === 'failed' ? `: ${t.error}` : ''})_`, '');
  });
  if (s.context.summary?.text) {
    lines.push('---', '', '## Summary sent in place of earlier messages', '', s.context.summary.text, '');
  }
  return lines.join('\n').replace(/\n+$/, '\n');
}

export function sessionToJson(s: SessionData, opts: ExportOptions = {}): string {
  const out = {
    id: s.id,
    title: s.title,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    model: s.model,
    system: s.system ?? null,
    turns: s.turns.map((t) => ({
      user: t.user,
      answer: t.answer,
      ...(opts.reasoning ? { reasoning: t.reasoning } : {}),
      status: t.status,
      started_at: t.startedAt ? new Date(t.startedAt).toISOString() : null,
      duration_ms: t.durationMs ?? null,
      usage: t.usage ?? null,
      ...(t.error ? { error: t.error } : {}),
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
