/**
 * One-shot mode: one question in, one answer on stdout. The answer is written exactly as
 * received when stdout is not a terminal; reasoning, progress and errors go to stderr. The
 * question goes through the one question pipeline (core/ask); this file only presents it.
 *
 * The patient-identifier guard: warn lists what was found on stderr and sends the question as
 * typed; redact sends placeholders, says so on stderr, and prints the answer with the values put
 * back: on a terminal each value put back is underlined (in ⟦ ⟧ with NO_COLOR), in a pipe or file
 * the answer is plain and stderr lists "[NAME-1] → …", so scripts get clean text and the user
 * still sees what was put back.
 */
import type { ChatResult, ChatEvent } from '../core/chat/chat-events.js';
import { ChatSession } from '../core/sessions/chat-session.js';
import type { Settings } from '../core/config/settings.js';
import { MedchatError, usageError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { OutputWriter, describeWriteFailure } from '../core/io/output.js';
import { jsonForTerminal, sanitizeForTerminal, sanitizeLine } from '../core/text/sanitize.js';
import { exitCodeForSignal, onStopSignals, type StopSignal } from '../core/io/signals.js';
import { formatDuration } from '../core/text/format.js';
import { colourAllowed, dim, isTty, red, yellow } from '../core/io/terminal.js';
import { ask, openPrivacy, type Answer, type AskEvent, type AskRequest } from '../core/ask/ask.js';
import type { PrivacyChoice } from '../core/privacy/choice.js';
import { putBackLine } from '../core/privacy/report.js';
import type { PutBack } from '../core/privacy/restore.js';
import type { GuardedQuestion } from '../core/privacy/session-privacy.js';
import { schemaFailureLines, schemaJsonFields } from '../core/request/schema/report.js';
import { cliText } from '../core/i18n/messages/cli.js';

interface OneShotOptions {
  userText: string;
  system?: string;
  stream: boolean;
  json: boolean;
  jsonl: boolean;
  reasoning: 'show' | 'hide';
  /** The conversation this question belongs to (new, `-c`, `--resume`); saved as it goes unless incognito. */
  session?: ChatSession;
  /** The patient-identifier guard: warn, redact (with shifted dates) or off. */
  privacy?: PrivacyChoice;
  /**
   * The request plan (request-plan.ts): files too big for the window are refused before anything
   * is saved; with a schema, the answer is not streamed to stdout; it is checked, repaired once by
   * a follow-up question when invalid, and printed as one JSON value (exit 9 if still invalid).
   */
  plan?: AskRequest['plan'];
}

interface OneShotIo {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/** No question and no piped text: what to do instead (the same words for `medchat` and `medchat demo`). */
export function nothingToAskError(terminal: boolean): MedchatError {
  return usageError(
    terminal
      ? cliText.nothingToAskTerminal
      : cliText.nothingToAsk,
  );
}

export async function runOneShot(settings: Settings, opts: OneShotOptions, io: OneShotIo): Promise<number> {
  if (!opts.userText.trim()) throw usageError(cliText.emptyPrompt);
  const out = new OutputWriter(io.stdout);
  const err = new OutputWriter(io.stderr);
  const outTty = isTty(io.stdout);
  const outColour = colourAllowed(io.stdout);
  const errColour = colourAllowed(io.stderr);
  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  const session = opts.session ?? ChatSession.open(settings, { system: opts.system, incognito: true });
  session.onSaveError = (e) => void err.write(yellow(cliText.notSaving(sanitizeLine(e.message)), errColour) + '\n');
  // The patient-identifier guard, loaded only when it has work (not `off`), just before sending.
  // (Checking while the request is on its way would save its ~15 ms, but an answer read late can
  // be judged cut off when the service closes the connection meanwhile: the fault harness saw it.)
  const privacy = await openPrivacy(opts.privacy, session.conversation.turns);
  const plan = opts.plan?.schema ? opts.plan : undefined;
  let turn: ChatSession['conversation']['turns'][number] | undefined;
  const removeSignals = onStopSignals((signal) => {
    if (stoppedBy) {
      // A second signal: leave at once, with what arrived saved.
      if (turn && (turn.status === 'pending' || turn.status === 'streaming')) {
        turn.status = 'interrupted';
        turn.error = 'interrupted';
        session.saveNow();
      }
      process.exit(exitCodeForSignal[signal]);
    }
    stoppedBy = signal;
    controller.abort();
  });
  // stdout gone (`| head`) or failing (a full disk): stop the request; what arrived is saved below.
  out.whenClosed(() => controller.abort());
  // On a terminal each value put back is marked: underlined, or in ⟦ ⟧ without colour.
  const mark = outTty ? (v: string) => (outColour ? `\x1b[4m${sanitizeForTerminal(v)}\x1b[24m` : `⟦${sanitizeForTerminal(v)}⟧`) : undefined;
  let done: Answer | undefined;
  let question: GuardedQuestion | undefined;
  let reasoningOpen = false;
  let failure: MedchatError | undefined;

  const closeReasoning = async () => {
    if (reasoningOpen) {
      reasoningOpen = false;
      await err.write(dim('\n', errColour) + '\n');
    }
  };

  const handle = async (e: AskEvent) => {
    switch (e.type) {
      case 'posed':
        turn = e.turn;
        question = e.question;
        if (question?.line) await err.write(yellow(`medchat: ${sanitizeLine(question.line)}`, errColour) + '\n');
        return;
      case 'compacted':
        // Summarised or trimmed earlier turns: the user is told on stderr (stdout stays the answer).
        await closeReasoning();
        await err.write(dim(sanitizeLine(e.text), errColour) + '\n');
        return;
      case 'repair': {
        // One repair, as a follow-up turn: the first answer stays in the conversation.
        await closeReasoning();
        const n = e.errors.length;
        await err.write(yellow(cliText.schemaRepair(n), errColour) + '\n');
        return;
      }
      default:
        break;
    }
    if (opts.jsonl && e.type !== 'end') await out.write(jsonForTerminal(wireEvent(e)) + '\n');
    switch (e.type) {
      case 'reasoning':
        if (!opts.json && !opts.jsonl && opts.reasoning === 'show') {
          const text = isTty(io.stderr) ? sanitizeForTerminal(e.text) : e.text;
          await err.write(dim(text, errColour));
          reasoningOpen = true;
        }
        break;
      case 'content':
        if (!opts.json && !opts.jsonl && !plan) {
          await closeReasoning();
          await out.write(e.shown ?? (outTty ? sanitizeForTerminal(e.text) : e.text));
        }
        break;
      case 'retry':
        await err.write(yellow(cliText.retrying(sanitizeLine(e.reason), formatDuration(e.delayMs)), errColour) + '\n');
        break;
      default:
        break;
    }
  };

  try {
    done = await ask({ session, question: opts.userText, privacy, plan: opts.plan, signal: controller.signal, stream: opts.stream, show: { mark, prepare: outTty ? sanitizeForTerminal : undefined } }, handle);
    turn = done.turn;
  } finally {
    removeSignals();
  }
  session.close();
  failure = done?.error;
  const result: ChatResult = { content: done?.content ?? '', reasoning: done?.reasoning ?? '', usage: done?.usage, finishReason: done?.finishReason, id: done?.id, model: done?.model };
  const finished = done?.finished;

  if (out.closed) return await endWithoutStdout();
  await closeReasoning();
  if (stoppedBy) failure = new MedchatError(plan ? cliText.interrupted : cliText.interruptedKept, exitCodeForSignal[stoppedBy] as never, 'interrupted');
  if (plan && !failure && finished && !finished.ok) {
    failure = new MedchatError(cliText.schemaInvalid, ExitCode.schemaInvalid, 'schema');
  }

  if (opts.json) {
    const obj: Record<string, unknown> = {
      id: result.id ?? null,
      model: result.model ?? settings.model,
      content: result.content,
      reasoning: result.reasoning,
      usage: result.usage ?? null,
      finish_reason: result.finishReason ?? null,
      complete: !failure,
    };
    if (plan) Object.assign(obj, schemaJsonFields(finished, done?.attempts ?? 1));
    const guardJson = privacyJson(question, done?.putBack ?? []);
    if (guardJson) obj.privacy = guardJson;
    if (failure) obj.error = { message: failure.message, exit_code: failure.exitCode };
    await out.write(jsonForTerminal(obj) + '\n');
  } else if (plan && finished?.ok && !failure) {
    // Exactly one JSON value: indented on a terminal, one line otherwise (so `>> results.jsonl` works).
    await out.write(jsonForTerminal(finished.value, outTty ? 2 : undefined) + '\n');
  } else if (opts.jsonl && failure) {
    await out.write(jsonForTerminal({ type: 'error', message: failure.message, exit_code: failure.exitCode }) + '\n');
  } else if (!opts.jsonl && !plan && outTty && result.content && !result.content.endsWith('\n')) {
    await out.write('\n');
  }
  await out.flush();
  if (out.closed) return await endWithoutStdout();
  const putBack = opts.json || opts.jsonl ? undefined : afterLine(done?.putBack ?? [], outTty, outColour);
  if (putBack) await err.write(dim(`medchat: ${sanitizeLine(putBack)}`, errColour) + '\n');
  if (failure) {
    await err.write(red(`medchat: ${sanitizeLine(failure.message)}`, errColour) + '\n');
    if (failure.exitCode === ExitCode.schemaInvalid && finished && !finished.ok) {
      // i18n-exempt: a command, the same in every language
      const kept = session.persistent && !session.saveError ? `medchat sessions show ${session.id}` : undefined;
      for (const line of schemaFailureLines(finished.errors, { json: opts.json, kept })) await err.write(sanitizeLine(line) + '\n');
    }
  }
  await err.flush();
  if (failure) return failure.exitCode;
  return err.failure ? ExitCode.failure : ExitCode.ok; // stderr could not be written (not a closed pipe)

  /**
   * stdout went away or failed mid-answer. The turn already holds (and the session file) what
   * arrived: `complete` if the whole answer came before, else `interrupted`, saved here with why.
   * A reader that left (`| head`) ends quietly with 0; a write error with one line and exit 1.
   */
  async function endWithoutStdout(): Promise<number> {
    const why = out.failure ? describeWriteFailure('stdout', out.failure) : undefined;
    if (turn?.status === 'interrupted' && !stoppedBy) {
      // i18n-exempt: saved in the session file, a record for other readers
      turn.error = why ?? 'stdout was closed before the answer ended (the reader went away)';
      session.saveNow();
    }
    if (failure && failure.kind !== 'interrupted') {
      // The answer failed on its own (not because stdout went): that is the line to show.
      await err.write(red(`medchat: ${sanitizeLine(failure.message)}`, errColour) + '\n');
      await err.flush();
      return failure.exitCode;
    }
    if (!why) return stoppedBy ? exitCodeForSignal[stoppedBy] : ExitCode.ok;
    const saved = session.persistent && !session.saveError ? cliText.savedSoFar(session.id) : '';
    await err.write(red(`medchat: ${why}${saved}`, errColour) + '\n');
    await err.flush();
    return ExitCode.failure;
  }
}

/** An event as --jsonl prints it: the wire's shape (what a screen shows of it left out). */
function wireEvent(e: Exclude<AskEvent, { type: 'posed' | 'compacted' | 'repair' }>): ChatEvent {
  if (e.type !== 'content') return e;
  return { type: 'content', text: e.text };
}

/** What to say on stderr after the answer: the values put back (listed for a pipe; counted on a terminal). */
function afterLine(putBack: readonly PutBack[], terminal: boolean, colour: boolean): string | undefined {
  if (!putBack.length) return undefined;
  if (!terminal) return putBackLine(putBack);
  const n = new Set(putBack.map((p) => p.placeholder)).size;
  return cliText.putBack(n, colour ? cliText.underlined : cliText.inBrackets);
}

/** For --json: what the guard did. */
function privacyJson(q: GuardedQuestion | undefined, putBack: readonly PutBack[]): Record<string, unknown> | undefined {
  if (!q || (!q.findings.length && !putBack.length)) return undefined;
  return {
    mode: q.mode,
    found: q.counts,
    put_back: [...new Map(putBack.map((p) => [p.placeholder, p.value]))].map(([placeholder, value]) => ({ placeholder, value })),
  };
}
