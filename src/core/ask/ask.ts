/**
 * One question, the same way for every front end (one-shot, the chat screen, each batch line):
 *
 *   plan (the caller's RequestPlan: role, files, schema; files that cannot fit refused)
 *   → privacy (the question checked or redacted; every message of a redacted request sealed)
 *   → context fit and the context-length retry (ChatSession.send)
 *   → the client (streamed, or one whole answer with the caller's retries and rate control)
 *   → schema repair (repair.ts) → turn status (conversation.ts's one rule) → save
 *   → the audit line, when the audit log is on (core/audit: counts and codes, never text)
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
 * exists (files too big for the window, or an audit log the policy requires that cannot be
 * written) is; a posed question the audit log refuses fails, unsent. Events go to a callback,
 * not through one more async generator: a long answer is tens of thousands of events, and each
 * hop costs CPU on every one.
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
import { auditLog, auditRequired, type AuditLog } from '../audit/log.js';
import type { AuditMode } from '../audit/record.js';
import type { Kind } from '../privacy/kinds.js';

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
  /**
   * The audit line (when the audit log is on): the mode (default `one-shot` for ask, `chat` for
   * answer) and, for a question that brings texts of its own (a batch line), what the guard found
   * in all of them.
   */
  audit?: { mode?: AuditMode; found?: Partial<Record<Kind, number>> };
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
  // The audit log, when on: a log that must be kept and cannot be written refuses the question before it is sent.
  const audit = auditFor((posed?.session ?? (opts as AskRequest).session).settings);
  const mode = opts.audit?.mode ?? (posed ? 'chat' : 'one-shot');
  if (!posed) {
    const req = opts as AskRequest;
    const plan = req.plan;
    audit?.gate();
    if (plan?.files?.length && plan.messages) await refuseFilesThatCannotFit(plan.messages, plan.files, req.session.settings);
    posed = pose(req.session, req.question, req.privacy);
    await emit({ type: 'posed', turn: posed.turn, question: posed.question });
  } else if (audit) {
    try {
      audit.gate();
    } catch (err) {
      return refused(posed, toMedchatError(err));
    }
  }
  const out = await pipeline(opts, emit, onEvent, posed);
  // Written once the answer is shown and saved: a failed write never costs the answer.
  if (audit) audit.record(auditEvent(posed, out, mode, opts.audit?.found));
  return out;
}

/** The question's answer and its repair, once it is in the conversation. */
async function pipeline(opts: AnswerOptions, emit: (e: AskEvent) => Promise<void>, onEvent: OnEvent, posed: Posed): Promise<Answer> {
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

/** The audit log, when the setting (or the policy) asks for one. */
function auditFor(settings: { audit?: boolean }): AuditLog | undefined {
  return settings.audit || auditRequired() ? auditLog() : undefined;
}

/** A posed question the audit gate stopped: failed, saved, not sent. */
function refused(posed: Posed, error: MedchatError): Answer {
  posed.turn.status = 'failed';
  posed.turn.error = error.message;
  posed.session.saveNow();
  return { turn: posed.turn, question: posed.question, content: '', reasoning: '', answered: false, attempts: 0, putBack: [], error };
}

/** What the audit line says of a question: counts, modes and codes, never its text. */
function auditEvent(posed: Posed, a: Answer, mode: AuditMode, found?: Partial<Record<Kind, number>>) {
  const settings = posed.session.settings;
  const schemaInvalid = !a.error && a.finished !== undefined && !a.finished.ok;
  const status = a.turn.status === 'pending' || a.turn.status === 'streaming' ? 'failed' : a.turn.status;
  const q = posed.question;
  return {
    mode,
    ...(posed.session.persistent ? { session: posed.session.id } : {}),
    baseUrl: settings.baseUrl,
    model: settings.model,
    tokensIn: a.usage?.prompt_tokens,
    tokensOut: a.usage?.completion_tokens,
    privacy: q?.mode ?? posed.privacy?.mode ?? 'off',
    identifiers: found ?? q?.counts ?? {},
    redacted: q?.mode === 'redact',
    outcome: schemaInvalid ? 'schema-invalid' : a.error?.kind === 'interrupted' ? 'interrupted' : status,
    exitCode: a.error?.exitCode ?? (schemaInvalid ? ExitCode.schemaInvalid : ExitCode.ok),
    ...(a.error ? { error: a.error.kind } : {}),
  };
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
