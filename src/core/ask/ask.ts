/**
 * One question, the same way for every front end (one-shot, the chat screen, each batch line):
 *
 *   plan (the caller's RequestPlan: role, files, schema; files that cannot fit refused)
 *   → privacy (the question checked or redacted; every message of a redacted request sealed)
 *   → context fit and the context-length retry (ChatSession.send)
 *   → the client (streamed, or one whole answer with the caller's retries and rate control)
 *   → schema repair (repair.ts) → turn status (conversation.ts's one rule) → save
 *
 * as events handed to the front end as they happen, and how it went at the end. Front ends only
 * present them:
 *
 *   const a = await ask({ session, question, plan, privacy }, onEvent);   // one-shot, batch
 *   const posed = pose(session, decided, privacy);                        // the chat screen, after
 *   const a = await answer(posed, { signal, show }, onEvent);             // its warn prompt
 *
 * Content and reasoning arrive with the values the guard replaced put back (`text`), and, for a
 * screen, marked (`shown`); keys echoed by the service are already masked (ChatSession). A
 * question's failure is in the answer (`error`), never thrown; only a refusal before the question
 * exists (files too big for the window) is. Events go to a callback, not through one more async
 * generator: a long answer is tens of thousands of events, and each hop costs CPU on every one.
 */
import type { Usage } from '../chat/chat-events.js';
import type { WireMessage } from '../chat/chat-request.js';
import type { Turn } from '../context/conversation.js';
import { redactSecrets, toMedchatError, type MedchatError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { InputFile } from '../request/inputs/files.js';
import { refuseFilesThatCannotFit } from '../request/inputs/fit.js';
import type { PrivacyChoice } from '../privacy/choice.js';
import type { GuardedQuestion, SessionPrivacy } from '../privacy/session-privacy.js';
import type { Mark, PutBack } from '../privacy/restore.js';
import type { Finished } from '../request/request-plan.js';
import { addUsage } from '../request/schema/report.js';
import type { ChatSession, SendOptions, SessionEvent } from '../sessions/chat-session.js';
import { schemaStep, type RepairEvent, type SchemaPlan } from './repair.js';

export type AskEvent =
  | Exclude<SessionEvent, { type: 'content' | 'reasoning' }>
  /** `text`: with the values put back; `shown`: for a screen, marked (only when something can be put back). */
  | { type: 'content'; text: string; shown?: string }
  | { type: 'reasoning'; text: string }
  /** The question is in the conversation (saved): `question` says what the guard found and did. */
  | { type: 'posed'; turn: Turn; question?: GuardedQuestion }
  | RepairEvent;

/** Where the events go; a promise it returns is waited for (stdout's backpressure). */
export type OnEvent = (e: AskEvent) => void | Promise<void>;

/** How a question went. */
export interface Answer {
  /** The last turn asked: the question's, or the repair request's after one. */
  turn: Turn;
  question?: GuardedQuestion;
  /** The last answer and its reasoning, with the values put back. */
  content: string;
  reasoning: string;
  /** Every request's usage together (a repair's included). */
  usage?: Usage;
  finishReason?: string;
  id?: string;
  model?: string;
  /** The service's answer arrived whole, though it may have ended early (cut at max-tokens, filtered, no text). */
  answered: boolean;
  /** Requests made: 2 after a schema repair. */
  attempts: number;
  /** With a schema: the check of the last answer checked (its value with the values put back). */
  finished?: Finished;
  /** The values put back, in every answer. */
  putBack: PutBack[];
  /** How it failed (interrupted, cut off, ended early, refused…); the turn's status says the same. */
  error?: MedchatError;
}

/** A question in the conversation, waiting for its answer. */
export interface Posed {
  session: ChatSession;
  turn: Turn;
  question?: GuardedQuestion;
  privacy?: SessionPrivacy;
}

interface AnswerOptions {
  signal?: AbortSignal;
  /** false: one whole-answer request (`--no-stream`, batch). */
  stream?: boolean;
  call?: SendOptions['call'];
  /** With a schema: the answer is checked and repaired once (repair.ts). */
  plan?: SchemaPlan & { schema?: unknown };
  /** How values put back are shown: `mark` around each, `prepare` on each piece first (a terminal's sanitizer). */
  show?: { mark?: Mark; prepare?: (piece: string) => string };
}

export interface AskRequest extends AnswerOptions {
  session: ChatSession;
  /** As composed (files, stdin, prompt), or as the guard already decided it (a batch line's). */
  question: string | GuardedQuestion;
  /** The conversation's guard (openPrivacy); none when privacy is off. */
  privacy?: SessionPrivacy;
  plan?: AnswerOptions['plan'] & { files?: readonly InputFile[]; messages?: readonly WireMessage[] };
}

export function ask(req: AskRequest, onEvent: OnEvent): Promise<Answer> {
  return run(req, onEvent);
}

/**
 * Put the question to the conversation (saved at once): checked or redacted by the guard, unless
 * `question` is the guard's decision already (the chat screen's warn prompt). The API key in use
 * is masked in it, whatever it came from.
 */
export function pose(session: ChatSession, question: string | GuardedQuestion, privacy?: SessionPrivacy): Posed {
  const guarded = typeof question === 'string' ? privacy?.outgoing(redactSecrets(question)) : { ...question, text: redactSecrets(question.text), typed: redactSecrets(question.typed) };
  const turn = session.ask(guarded ? guarded.text : redactSecrets(question as string));
  if (guarded && privacy) privacy.attach(turn, guarded);
  return { session, turn, question: guarded, privacy };
}

/** Send a posed question and answer it, repaired once when it does not match the schema; see the top of this file. */
export function answer(posed: Posed, opts: AnswerOptions, onEvent: OnEvent): Promise<Answer> {
  return run(opts, onEvent, posed);
}

/** The pipeline. `posed`: the question is in the conversation already. */
async function run(opts: AnswerOptions & Partial<AskRequest>, onEvent: OnEvent, posed?: Posed): Promise<Answer> {
  const emit = async (e: AskEvent) => {
    const waiting = onEvent(e);
    if (waiting) await waiting;
  };
  if (!posed) {
    const req = opts as AskRequest;
    const plan = req.plan;
    if (plan?.files?.length && plan.messages) await refuseFilesThatCannotFit(plan.messages, plan.files, req.session.settings);
    posed = pose(req.session, req.question, req.privacy);
    await emit({ type: 'posed', turn: posed.turn, question: posed.question });
  }
  const { session, privacy } = posed;
  const seal = posed.question?.mode === 'redact' && privacy ? (text: string) => privacy.guard.seal(text) : undefined;
  const out: Answer = { turn: posed.turn, question: posed.question, content: '', reasoning: '', answered: false, attempts: 0, putBack: [] };
  const plan = opts.plan?.schema ? opts.plan : undefined;
  let turn = posed.turn;
  for (;;) {
    // One request (the question's, or the schema repair's) and its answer.
    const earlier = out.usage;
    Object.assign(out, { turn, content: '', reasoning: '', finishReason: undefined, answered: false, error: undefined, attempts: out.attempts + 1 });
    const restoring = privacy?.restoring;
    const shown = restoring ? privacy.answer(opts.show?.mark, opts.show?.prepare) : undefined;
    const thought = restoring ? privacy.answer() : undefined;
    try {
      for await (const e of session.send(turn, { signal: opts.signal, stream: opts.stream, call: opts.call, seal })) {
        switch (e.type) {
          case 'content': {
            // The hot path: a promise only when the front end returns one (no tick per piece otherwise).
            // The text is kept once, on the turn (or by the restorer): out.content is set at the end.
            if (!shown) {
              const waiting = onEvent(e);
              if (waiting) await waiting;
              break;
            }
            const r = shown.push(e.text);
            if (r.plain || r.shown) await emit({ type: 'content', text: r.plain, shown: r.shown });
            break;
          }
          case 'reasoning': {
            const text = thought ? thought.push(e.text).plain : e.text;
            if (!text) break;
            const waiting = onEvent(thought ? { type: 'reasoning', text } : e);
            if (waiting) await waiting;
            break;
          }
          case 'usage':
            out.usage = earlier ? addUsage(earlier, e.usage) : e.usage;
            await emit(e);
            break;
          case 'finish':
            out.finishReason = e.reason;
            await emit(e);
            break;
          case 'end':
            out.id = e.id;
            out.model = e.model;
            out.finishReason ??= e.finishReason;
            await emit(e);
            break;
          default:
            await emit(e);
        }
      }
      out.answered = true;
    } catch (err) {
      out.error = toMedchatError(err);
      out.answered = out.error.exitCode === ExitCode.endedEarly;
    }
    if (shown && thought) {
      // What the restorers held back (a placeholder cut at the end), then the answer as shown kept on the turn.
      const reasoning = thought.end().plain;
      if (reasoning) await emit({ type: 'reasoning', text: reasoning });
      const rest = shown.end();
      if (rest.plain || rest.shown) await emit({ type: 'content', text: rest.plain, shown: rest.shown });
      privacy!.finish(turn, shown);
      out.putBack.push(...shown.putBack);
      session.saveNow();
      out.content = shown.plain;
      out.reasoning = thought.plain;
    } else {
      // What the service sent (keys masked), as the turn holds it.
      out.content = turn.answer;
      out.reasoning = turn.reasoning;
    }
    if (!plan || out.error) break;
    // With a schema: checked, and repaired once when it does not match (repair.ts); on what the service sent.
    const step = schemaStep(plan, turn.answer, out.attempts);
    out.finished = privacy?.restoring ? restoreFinished(step.finished, privacy) : step.finished;
    if (step.done) break;
    await emit({ type: 'repair', errors: step.errors });
    turn = session.ask(step.request);
  }
  return out;
}

/** A checked answer with the values put back in every string of its value (and its JSON). */
function restoreFinished(finished: Finished, privacy: SessionPrivacy): Finished {
  if (!finished.ok || finished.value === undefined) return finished;
  const value = restoreStrings(finished.value, (s) => privacy.guard.restore(s).text);
  return { ...finished, value, content: JSON.stringify(value) };
}

function restoreStrings(value: unknown, restore: (s: string) => string): unknown {
  if (typeof value === 'string') return restore(value);
  if (Array.isArray(value)) return value.map((v) => restoreStrings(v, restore));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, restoreStrings(v, restore)]));
  return value;
}

/** The conversation's guard for this setting (loaded only now, and only when it has work: not off). */
export async function openPrivacy(choice: PrivacyChoice | undefined, earlier: readonly Turn[]): Promise<SessionPrivacy | undefined> {
  if (!choice || choice.mode === 'off') return undefined;
  const { SessionPrivacy } = await import('../privacy/session-privacy.js');
  return SessionPrivacy.open(earlier, choice);
}
