import type { ClientSettings } from '../chat/chat-client.js';
import type { WireMessage } from '../chat/chat-request.js';
import { MedchatError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { buildSummaryMessages, type SummaryReply, type SummaryRequestOptions } from './summarise.js';
import { extractFacts, listFacts, missingFacts, sentencesStating, type Fact } from './summary-check.js';
import { countMessages } from './tokens.js';
import { contextText } from '../i18n/messages/context.js';

/**
 * A summary that is allowed to replace turns: whole (`finish_reason: stop`), not empty, and
 * keeping every allergy, dosed medication and age the cheap check finds in what it replaces
 * (the folded turns and the earlier summary). A summary that fails is asked for once more, with
 * up to four times the room and the missing facts listed; if that fails too the caller gets the
 * reason and keeps the turns (or trims them) instead.
 */
export type Summariser = (settings: ClientSettings, previous: string | undefined, messages: readonly WireMessage[], opts: SummaryRequestOptions) => Promise<SummaryReply>;

interface SummaryJob {
  settings: ClientSettings;
  contextWindow: number;
  /** max_tokens of the first try. */
  maxTokens: number;
  /** Prompt tokens in the service's count (calibrated). */
  scale: (rawTokens: number) => number;
  summariser: Summariser;
  signal?: AbortSignal;
}

type CheckedSummary =
  | { ok: true; text: string; /** What was wrong with the first try, when a second was needed. */ firstTry?: string }
  | { ok: false; /** e.g. `the summary was cut off (finish_reason length), twice`. */ reason: string };

/** Why `reply` cannot replace the turns, or undefined when it can. `missing` gets the facts it left out. */
function problemWith(reply: SummaryReply, facts: readonly Fact[], missing: Fact[]): string | undefined {
  missing.length = 0;
  missing.push(...missingFacts(facts, reply.text));
  const finish = reply.finishReason;
  if (finish === 'length') return contextText.summaryCutOff;
  if (finish === 'content_filter') return contextText.summaryFiltered;
  if (!finish) return contextText.summaryNoFinish;
  if (finish !== 'stop') return contextText.summaryEndedWith(finish);
  if (!reply.text) return contextText.summaryEmpty;
  if (missing.length) return contextText.summaryLeftOut(listFacts(missing));
  return undefined;
}

export async function summariseChecked(job: SummaryJob, previous: string | undefined, folded: readonly WireMessage[]): Promise<CheckedSummary> {
  const facts = extractFacts([previous ?? '', ...folded.map((m) => m.content)]);
  const missing: Fact[] = [];
  const first = await summariseChunked(job, previous, folded, job.maxTokens, []);
  const firstProblem = problemWith(first, facts, missing);
  if (!firstProblem) return { ok: true, text: first.text };

  const mustKeep = (missing.length ? missing : facts).map((f) => f.label);
  const whole = job.scale(countMessages(buildSummaryMessages(previous, folded, mustKeep)));
  const roomy = Math.min(job.maxTokens * 4, Math.floor(job.contextWindow / 2), Math.max(job.maxTokens * 2, job.contextWindow - Math.ceil(whole / 0.9) - 16));
  let second: SummaryReply;
  try {
    second = await summariseChunked(job, previous, folded, Math.max(job.maxTokens, roomy), mustKeep);
  } catch (err) {
    if (job.signal?.aborted || (err as MedchatError)?.kind === 'interrupted') throw err;
    return { ok: false, reason: contextText.askAgainFailed(firstProblem, String((err as Error).message).split('; ')[0] ?? '') };
  }
  const secondProblem = problemWith(second, facts, missing);
  if (!secondProblem) return { ok: true, text: second.text, firstTry: firstProblem };
  return { ok: false, reason: secondProblem === firstProblem ? contextText.twice(firstProblem) : contextText.thenAlso(firstProblem, secondProblem) };
}

/** Summarise `folded` on top of `previous`, in pieces that each fit the window when they must. A piece that is not whole ends it. */
async function summariseChunked(job: SummaryJob, previous: string | undefined, folded: readonly WireMessage[], maxTokens: number, mustKeep: readonly string[]): Promise<SummaryReply> {
  const room = Math.floor((job.contextWindow - maxTokens) * 0.9);
  const call: SummaryRequestOptions = { signal: job.signal, maxTokens, retries: 1, ...(mustKeep.length ? { mustKeep } : {}) };
  let summary = previous;
  let chunk: WireMessage[] = [];
  const fits = (msgs: WireMessage[]) => job.scale(countMessages(buildSummaryMessages(summary, msgs, mustKeep))) <= room;
  for (let i = 0; i < folded.length; i += 2) {
    const pair = folded.slice(i, i + 2);
    if (chunk.length && !fits([...chunk, ...pair])) {
      const part = await job.summariser(job.settings, summary, chunk, call);
      if (part.finishReason !== 'stop' || !part.text) return part;
      summary = part.text;
      chunk = [];
    }
    chunk.push(...pair);
    if (!fits(chunk)) throw new MedchatError(contextText.exchangeTooLong, ExitCode.failure, 'summary-too-long');
  }
  if (chunk.length) return job.summariser(job.settings, summary, chunk, call);
  return { text: summary ?? '', finishReason: 'stop' };
}

/**
 * Before `folded` is dropped: the facts in it that nothing still sent states (`stillSent`: the
 * summary and the turns kept) are quoted, word for word, after the summary. Returns the new
 * summary text (undefined when nothing is lost) and the labels of the facts quoted.
 */
export function quoteLostFacts(summary: string | undefined, folded: readonly WireMessage[], stillSent: string): { text?: string; labels: string[] } {
  const facts = extractFacts(folded.map((m) => m.content));
  const lost = facts.length ? missingFacts(facts, stillSent).slice(0, 12) : [];
  if (!lost.length) return { labels: [] };
  const lines = sentencesStating(
    lost,
    folded.map((m) => ({ who: m.role === 'user' ? 'User' : 'Assistant', text: m.content })),
  );
  // i18n-exempt: sent to the model, inside the summary
  const block = `Stated in earlier messages that were dropped (quoted word for word):\n${lines.map((l) => `- ${l}`).join('\n')}`;
  return { text: summary ? `${summary}\n\n${block}` : block, labels: lost.map((f) => f.label) };
}
