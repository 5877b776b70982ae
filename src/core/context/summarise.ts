/**
 * The summarising request: a separate, non-streaming request with thinking off that condenses
 * the oldest turns of a conversation into a clinical summary, merging an earlier summary.
 */
import { completeChat, type CallOptions, type ClientSettings } from '../chat/chat-client.js';
import type { WireMessage } from '../chat/chat-request.js';
import { redact } from '../config/secret-redactor.js';

const SUMMARY_INSTRUCTIONS = `You condense the earlier part of a medical conversation between a user and an assistant so that the conversation can continue without it. Write a clinical summary that keeps every patient fact. Do not add advice, opinions or facts that are not in the text.

Keep, with exact numbers, units, dates and names:
- the patient: age, sex, and anything else that identifies the clinical picture (pregnancy, weight, occupation when relevant);
- symptoms and their timeline: onset, duration, course, severity, triggers, what relieves them;
- medical, surgical, family and social history;
- medications with doses, routes, frequency and changes; allergies and intolerances with the reaction;
- vital signs, examination findings, laboratory values and imaging results, with their dates or order;
- diagnoses considered, confirmed or ruled out, and why;
- decisions made, treatments advised or started, referrals, and follow-up plans;
- open questions and anything still to be answered or checked;
- the user's standing instructions and preferences (language, format, role, level of detail, what to avoid).

If an earlier summary is given, merge it with the new messages into one summary: keep all of its facts, update facts that changed (say what changed and when), and drop nothing that is still relevant.

Write plain text with short headed sections in the language of the conversation. Be compact: no preamble, no closing remarks.`;

/**
 * Messages shown to the summariser: the earlier summary (if any) and the turns to fold, as a
 * transcript. `mustKeep` (on the second try) lists the facts the first summary left out.
 */
export function buildSummaryMessages(previous: string | undefined, messages: readonly WireMessage[], mustKeep: readonly string[] = []): WireMessage[] {
  const transcript = messages
    .map((m) => `### ${m.role === 'user' ? 'User' : m.role === 'assistant' ? 'Assistant' : 'System'}\n${m.content}`)
    .join('\n\n');
  const parts: string[] = [];
  if (previous?.trim()) parts.push(`Earlier summary:\n\n${previous.trim()}`);
  parts.push(`${previous?.trim() ? 'Newer messages' : 'Messages'} to summarise:\n\n${transcript}`);
  if (mustKeep.length) {
    parts.push(`A first summary of these messages was incomplete. Your summary must state each of these facts, with its exact numbers and units:\n${mustKeep.map((f) => `- ${f}`).join('\n')}`);
  }
  parts.push(previous?.trim() ? 'Write the merged clinical summary now.' : 'Write the clinical summary now.');
  return [
    { role: 'system', content: SUMMARY_INSTRUCTIONS },
    { role: 'user', content: parts.join('\n\n') },
  ];
}

export interface SummaryReply {
  /** The summary, trimmed (may be empty: the caller checks it). */
  text: string;
  /** As the service gave it: only `stop` means the summary is whole. */
  finishReason?: string | null;
}

export type SummaryRequestOptions = CallOptions & { maxTokens: number; mustKeep?: readonly string[] };

/** Ask the service for the summary. Non-streaming, `enable_thinking: false`, at most `maxTokens`. */
export async function requestSummary(
  settings: ClientSettings,
  previous: string | undefined,
  messages: readonly WireMessage[],
  opts: SummaryRequestOptions,
): Promise<SummaryReply> {
  const { maxTokens, mustKeep, ...call } = opts;
  const result = await completeChat({ ...settings, thinking: false, maxTokens }, buildSummaryMessages(previous, messages, mustKeep), call);
  return { text: redact(result.content).trim(), finishReason: result.finishReason };
}

/** How the summary travels: appended to the system prompt (which stays word for word) so roles keep alternating. */
export function systemWithSummary(system: string | undefined, summary: string | undefined): string | undefined {
  if (!summary) return system;
  const block = `Summary of the earlier part of this conversation (older messages were condensed to fit the model's context window):\n\n${summary}`;
  return system ? `${system}\n\n${block}` : block;
}
