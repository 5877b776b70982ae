import type { ChatResult } from './core/chat-events.js';
import { ChatSession, type SessionEvent } from './core/sessions/chat-session.js';
import type { Settings } from './core/settings.js';
import { MedchatError, toMedchatError, usageError } from './core/errors.js';
import { ExitCode } from './core/exit-codes.js';
import { OutputWriter, describeWriteFailure } from './core/output.js';
import { jsonForTerminal, sanitizeForTerminal, sanitizeLine } from './core/sanitize.js';
import { exitCodeForSignal, onStopSignals, type StopSignal } from './core/signals.js';
import { formatDuration } from './core/text/format.js';
import { colourAllowed, dim, isTty, red, yellow } from './core/terminal.js';
import { OneShotPrivacy, type PrivacySetting } from './oneshot-privacy.js';
import type { Finished, RequestPlan } from './core/request-plan.js';
import { addUsage, schemaFailureLines, schemaJsonFields } from './core/schema/report.js';

/**
 * One-shot mode: one question in, one answer on stdout. The answer is written exactly as
 * received when stdout is not a terminal; reasoning, progress and errors go to stderr.
 */
export interface OneShotOptions {
  userText: string;
  system?: string;
  stream: boolean;
  json: boolean;
  jsonl: boolean;
  reasoning: 'show' | 'hide';
  /** The conversation this question belongs to (new, `-c`, `--resume`); saved as it goes unless incognito. */
  session?: ChatSession;
  /** The patient-identifier guard (issue 14): warn, redact (with shifted dates) or off. */
  privacy?: PrivacySetting;
  /**
   * With a schema (request-plan.ts): the answer is not streamed to stdout; it is checked, repaired
   * once by a follow-up question when invalid, and printed as one JSON value (exit 9 if still invalid).
   */
  plan?: Pick<RequestPlan, 'schema' | 'finish' | 'repairRequest'>;
}

/** An answer piece after the privacy guard: `text` restored, `shown` what to print (marked on a terminal). */
type GuardedEvent = SessionEvent & { shown?: string };

export interface OneShotIo {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/** Compose the single user message from stdin and the prompt (stdin first, then the instruction). */
export function composeUserText(prompt: string | undefined, stdinText: string | undefined): string {
  const p = prompt?.trim() ? prompt : '';
  const s = stdinText?.trim() ? stdinText.replace(/\s+$/, '') : '';
  if (p && s) return `${s}\n\n${p}`;
  return p || s;
}

/** No question and no piped text: what to do instead (the same words for `medchat` and `medchat demo`). */
export function nothingToAskError(terminal: boolean): MedchatError {
  return usageError(
    terminal
      ? 'nothing to ask: pass a question, e.g. medchat "…", or pipe text in'
      : 'nothing to ask: pass a question as an argument or on stdin (the chat screen needs a terminal)',
  );
}

export async function runOneShot(settings: Settings, opts: OneShotOptions, io: OneShotIo): Promise<number> {
  if (!opts.userText.trim()) throw usageError('the prompt is empty; pass a question, e.g. medchat "what is the normal adult heart rate?"');
  const out = new OutputWriter(io.stdout);
  const err = new OutputWriter(io.stderr);
  const outTty = isTty(io.stdout);
  const errColour = colourAllowed(io.stderr);
  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  const session = opts.session ?? ChatSession.open(settings, { system: opts.system, incognito: true });
  session.onSaveError = (e) => void err.write(yellow(`medchat: warning: ${sanitizeLine(e.message)}; this conversation is not being saved`, errColour) + '\n');
  // The patient-identifier guard, loaded only when it has work (not `off`), just before sending.
  // (Checking while the request is on its way would save its ~15 ms, but an answer read late can
  // be judged cut off when the service closes the connection meanwhile: the fault harness saw it.)
  const privacy = await OneShotPrivacy.open(opts.privacy, session.conversation.turns);
  const question = privacy?.check(opts.userText);
  if (question?.line) await err.write(yellow(`medchat: ${sanitizeLine(question.line)}`, errColour) + '\n');
  let turn = session.ask(question?.text ?? opts.userText);
  privacy?.attach(turn);
  privacy?.startAnswer(outTty, colourAllowed(io.stdout));
  const plan = opts.plan?.schema ? opts.plan : undefined;
  let finished: Finished | undefined;
  let attempts = 0;
  const removeSignals = onStopSignals((signal) => {
    if (stoppedBy) {
      // A second signal: leave at once, with what arrived saved.
      if (turn.status === 'pending' || turn.status === 'streaming') {
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
  const result: ChatResult = { content: '', reasoning: '' };
  let reasoningOpen = false;
  let failure: MedchatError | undefined;

  const closeReasoning = async () => {
    if (reasoningOpen) {
      reasoningOpen = false;
      await err.write(dim('\n', errColour) + '\n');
    }
  };

  const handle = async (e: GuardedEvent) => {
    if (e.type === 'compacted') {
      // Summarised or trimmed earlier turns: the user is told on stderr (stdout stays the answer).
      await closeReasoning();
      await err.write(dim(sanitizeLine(e.text), errColour) + '\n');
      return;
    }
    if (opts.jsonl && e.type !== 'end') {
      const { shown: _shown, ...wire } = e;
      await out.write(jsonForTerminal(wire) + '\n');
    }
    switch (e.type) {
      case 'reasoning':
        result.reasoning += e.text;
        if (!opts.json && !opts.jsonl && opts.reasoning === 'show') {
          const text = isTty(io.stderr) ? sanitizeForTerminal(e.text) : e.text;
          await err.write(dim(text, errColour));
          reasoningOpen = true;
        }
        break;
      case 'content':
        result.content += e.text;
        if (!opts.json && !opts.jsonl && !plan) {
          await closeReasoning();
          await out.write(e.shown ?? (outTty ? sanitizeForTerminal(e.text) : e.text));
        }
        break;
      case 'usage':
        // With a repair, both requests' tokens count.
        result.usage = attempts > 1 ? addUsage(result.usage, e.usage) : e.usage;
        break;
      case 'finish':
        result.finishReason = e.reason;
        break;
      case 'retry':
        await err.write(yellow(`medchat: ${sanitizeLine(e.reason)}, retrying in ${formatDuration(e.delayMs)}…`, errColour) + '\n');
        break;
      case 'end':
        result.id = e.id;
        result.model = e.model;
        result.finishReason ??= e.finishReason;
        break;
    }
  };

  const sendTurn = async () => {
    attempts++;
    for await (const e of session.send(turn, { signal: controller.signal, stream: opts.stream })) {
      const guarded = privacy?.restoring ? guardEvent(privacy, e) : e;
      if (guarded) await handle(guarded);
    }
  };
  try {
    await sendTurn();
    if (plan && !stoppedBy && !out.closed) {
      finished = plan.finish(result.content);
      if (!finished.ok) {
        // One repair, as a follow-up turn: the first answer stays in the conversation.
        await closeReasoning();
        await err.write(yellow(`medchat: the answer does not match the schema (${finished.errors.length} error${finished.errors.length === 1 ? '' : 's'}); asking once for a corrected answer…`, errColour) + '\n');
        result.content = '';
        result.reasoning = '';
        turn = session.ask(plan.repairRequest(finished));
        await sendTurn();
        if (!stoppedBy && !out.closed) finished = plan.finish(result.content);
      }
    }
  } catch (e) {
    failure = toMedchatError(e);
  } finally {
    removeSignals();
  }
  if (privacy?.restoring && !out.closed) {
    // What the restorer held back (a placeholder cut at the end), then the answer as shown kept on the turn.
    const rest = privacy.end();
    if (rest.reasoning) await handle({ type: 'reasoning', text: rest.reasoning });
    if (rest.plain || rest.shown) await handle({ type: 'content', text: rest.plain, shown: rest.shown });
    privacy.finish(turn);
    session.saveNow();
  }
  session.close();

  if (out.closed) return await endWithoutStdout();
  await closeReasoning();
  if (stoppedBy) failure = new MedchatError(plan ? 'interrupted' : 'interrupted; the partial answer above is kept', exitCodeForSignal[stoppedBy] as never, 'interrupted');
  if (plan && !failure && finished && !finished.ok) {
    failure = new MedchatError('the answer is not valid JSON for the schema, even after one repair request', ExitCode.schemaInvalid, 'schema');
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
    if (plan) Object.assign(obj, schemaJsonFields(finished, attempts));
    const guardJson = privacy?.json();
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
  const putBack = opts.json || opts.jsonl ? undefined : privacy?.afterLine(outTty, colourAllowed(io.stdout));
  if (putBack) await err.write(dim(`medchat: ${sanitizeLine(putBack)}`, errColour) + '\n');
  if (failure) {
    await err.write(red(`medchat: ${sanitizeLine(failure.message)}`, errColour) + '\n');
    if (failure.exitCode === ExitCode.schemaInvalid && finished && !finished.ok) {
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
    if (turn.status === 'interrupted' && !stoppedBy) {
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
    const saved = session.persistent && !session.saveError ? ` (what arrived is saved: medchat sessions show ${session.id})` : '';
    await err.write(red(`medchat: ${why}${saved}`, errColour) + '\n');
    await err.flush();
    return ExitCode.failure;
  }
}

/** Content and reasoning with the values put back (nothing while a placeholder is cut in two); other events as they are. */
function guardEvent(privacy: OneShotPrivacy, e: SessionEvent): GuardedEvent | undefined {
  if (e.type === 'content') {
    const r = privacy.content(e.text);
    return r.plain || r.shown ? { type: 'content', text: r.plain, shown: r.shown } : undefined;
  }
  if (e.type === 'reasoning') {
    const text = privacy.reasoning(e.text);
    return text ? { type: 'reasoning', text } : undefined;
  }
  return e;
}
