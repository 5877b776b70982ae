/**
 * Plain helpers behind the chat controller's session features (no React, no I/O): the first
 * lines of the screen, the transcript of a resumed session, the `/sessions` list, the `/tokens`
 * breakdown and the footer meter.
 */
import type { Compaction } from '../../core/context/context.js';
import { hostOf } from '../../core/net/network-errors.js';
import type { Settings } from '../../core/config/settings.js';
import { describeCompaction } from '../../core/context/context.js';
import { closeCutMarkup } from '../../core/text/markdown/cut-off.js';
import type { Turn } from '../../core/context/conversation.js';
import { sanitizeForTerminal } from '../../core/text/sanitize.js';
import type { ChatSession } from '../../core/sessions/chat-session.js';
import type { SessionInfo } from '../../core/sessions/store.js';
import { countText } from '../../core/context/tokens.js';
import type { NewItem } from './screen-state.js';
import type { TokenBreakdown } from '../../core/context/context.js';
import { formatListTime, formatTokens, formatWindow } from '../../core/text/format.js';
import type { Meter } from '../text/format.js';
import { textWidth, wrapLine } from '../../core/text/width.js';
import { uiChatText } from '../../core/i18n/messages/ui-chat.js';

/** What the screen starts with: the header (what cannot change during the session), and in the demo a warning. */
export function openingItems(o: { version: string; demo?: boolean; settings: Settings; role?: string }): NewItem[] {
  const header: NewItem = {
    kind: 'header',
    version: o.demo ? `${o.version} · DEMO` : o.version,
    model: o.settings.model,
    thinking: o.settings.thinking,
    host: hostOf(o.settings.baseUrl),
    disclaimer: o.settings.disclaimer,
    ...(o.role ? { role: o.role } : {}),
  };
  if (!o.demo) return [header];
  return [header, { kind: 'notice', tone: 'warn', text: uiChatText.demo }];
}

/** The printed transcript of a saved conversation: each turn as it would have been printed, folds where they happened. */
export function itemsForTurns(turns: readonly Turn[], compactions: readonly Compaction[], stats: (t: Turn) => string): NewItem[] {
  const out: NewItem[] = [];
  const pending = [...compactions].sort((a, b) => a.at - b.at);
  const flush = (before: number) => {
    while (pending.length && pending[0]!.at < before) out.push({ kind: 'notice', text: describeCompaction(pending.shift()!), tone: 'info' });
  };
  turns.forEach((t, i) => {
    flush(t.startedAt);
    // With the privacy guard's redact mode: the question as typed and the answer as shown, not as sent.
    out.push({ kind: 'user', text: sanitizeForTerminal(t.privacy?.typed ?? t.user) });
    // A fold made while this turn was being sent goes between the question and its answer.
    const next = turns[i + 1]?.startedAt ?? Number.POSITIVE_INFINITY;
    const end = t.startedAt + (t.durationMs ?? 0);
    while (pending.length && pending[0]!.at < Math.min(end, next)) out.push({ kind: 'notice', text: describeCompaction(pending.shift()!), tone: 'info' });
    // The count the fold line showed live (saved with the turn); a turn saved before it was kept is counted here.
    if (t.reasoning.trim()) out.push({ kind: 'reasoning', text: sanitizeForTerminal(t.reasoning.trim()), ms: t.reasoningMs ?? 0, tokens: t.reasoningTokens ?? countText(t.reasoning) });
    const shown = t.privacy?.shown ?? t.answer;
    // Cut short (interrupted, incomplete, failed): its last paragraph shown as the live screen showed it.
    const answer = t.status === 'complete' ? shown.trimEnd() : closeCutMarkup(shown);
    if (answer) out.push({ kind: 'answer', text: sanitizeForTerminal(answer) });
    out.push({ kind: 'status', status: t.status, ...(t.error && t.status !== 'interrupted' ? { error: sanitizeForTerminal(t.error) } : {}), stats: stats(t) });
  });
  flush(Number.POSITIVE_INFINITY);
  return out;
}

/** How to come back to a saved conversation: said by /help, and printed on leaving the chat screen. */
export function continueLine(id: string): string {
  return uiChatText.continueLater(id);
}

/** The line that says which session is open, after a resume. */
export function resumedLine(s: ChatSession): string {
  return uiChatText.resumed(s.id, s.title, s.conversation.turns.length, s.persistent);
}

/**
 * `/sessions`: the most recent sessions, newest first, one line each, laid out for `width`
 * columns: a first question too long for its row wraps under itself (or, when that column is
 * too narrow, under the id), never back to column 0.
 */
export function sessionListText(list: readonly SessionInfo[], current: string | undefined, width = 80, limit = 10): string {
  if (list.length === 0) return uiChatText.noSessions;
  const shown = list.slice(0, limit);
  const lines = shown.flatMap((s) => {
    const date = formatListTime(s.updatedAt).padEnd(16);
    const count = uiChatText.turns(s.turns);
    const turns = ' '.repeat(Math.max(0, 9 - textWidth(count))) + count;
    const mark = s.id === current ? '●' : ' ';
    const lead = `${mark} ${s.id}  ${date}  ${turns}  `;
    const hang = width - textWidth(lead) >= 20 ? textWidth(lead) : 2;
    return wrapLine(lead + sanitizeForTerminal(s.title || uiChatText.noQuestion), width, ' '.repeat(hang));
  });
  const more = list.length > shown.length ? wrapLine(uiChatText.moreSessions(list.length - shown.length), width, '    ') : [];
  return [...wrapLine(uiChatText.recentSessions, width, '  '), ...lines, ...more].join('\n');
}

/** `/tokens`: where the context window goes. */
export function breakdownText(b: TokenBreakdown): string {
  const n = (x: number) => formatTokens(Math.max(0, Math.round(x))).padStart(6);
  const t = uiChatText;
  const turns = (k: number) => t.turns(k);
  const lines = [
    t.contextWindow(formatWindow(b.window), b.window, b.calibrated),
    t.systemPromptRow + n(b.system),
    t.summaryRow + n(b.summary) + (b.foldedTurns ? t.foldedIn(turns(b.foldedTurns)) : ''),
    t.keptRow + n(b.kept) + t.wordForWord(turns(b.keptTurns)),
    t.nextRow + n(b.next),
    t.maxTokensRow + n(b.maxTokens) + t.reserved,
    t.roomRow + n(b.room) + t.roomOf(formatTokens(b.budget), formatTokens(b.threshold)),
  ];
  if (b.room < 0) lines.push(t.doesNotFit);
  return lines.join('\n');
}

/** The footer meter: the next request (prompt + max_tokens) against the window; warns once summarising is near. */
export function meterFrom(b: TokenBreakdown): Meter {
  const used = Math.round(b.fraction * b.window);
  return { used, window: b.window, warnAt: (b.threshold + b.maxTokens) / b.window };
}
