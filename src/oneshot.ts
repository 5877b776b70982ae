import { streamChat, completeChat, type ClientSettings } from './core/chat-client.js';
import type { ChatEvent, ChatResult } from './core/chat-events.js';
import { Conversation } from './core/conversation.js';
import { MedchatError, toMedchatError, usageError } from './core/errors.js';
import { ExitCode } from './core/exit-codes.js';
import { OutputWriter } from './core/output.js';
import { sanitizeForTerminal } from './core/sanitize.js';
import { exitCodeForSignal, onStopSignals, type StopSignal } from './core/signals.js';
import { colourAllowed, dim, isTty, red, yellow } from './core/terminal.js';

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
}

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

export async function runOneShot(settings: ClientSettings, opts: OneShotOptions, io: OneShotIo): Promise<number> {
  if (!opts.userText.trim()) throw usageError('the prompt is empty; pass a question, e.g. medchat "what is the normal adult heart rate?"');
  const out = new OutputWriter(io.stdout);
  const err = new OutputWriter(io.stderr);
  const outTty = isTty(io.stdout);
  const errColour = colourAllowed(io.stderr);
  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  const removeSignals = onStopSignals((signal) => {
    if (stoppedBy) process.exit(exitCodeForSignal[signal]); // a second signal: leave at once
    stoppedBy = signal;
    controller.abort();
  });
  out.whenClosed(() => controller.abort());

  const conversation = new Conversation(opts.system);
  const turn = conversation.addTurn(opts.userText);
  const result: ChatResult = { content: '', reasoning: '' };
  let reasoningOpen = false;
  let failure: MedchatError | undefined;

  const closeReasoning = async () => {
    if (reasoningOpen) {
      reasoningOpen = false;
      await err.write(dim('\n', errColour) + '\n');
    }
  };

  const handle = async (e: ChatEvent) => {
    if (opts.jsonl && e.type !== 'end') await out.write(JSON.stringify(e) + '\n');
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
        if (!opts.json && !opts.jsonl) {
          await closeReasoning();
          await out.write(outTty ? sanitizeForTerminal(e.text) : e.text);
        }
        break;
      case 'usage':
        result.usage = e.usage;
        break;
      case 'finish':
        result.finishReason = e.reason;
        break;
      case 'retry':
        await err.write(yellow(`medchat: ${e.reason}, retrying in ${(e.delayMs / 1000).toFixed(1)}s…`, errColour) + '\n');
        break;
      case 'end':
        result.id = e.id;
        result.model = e.model;
        result.finishReason ??= e.finishReason;
        break;
    }
  };

  try {
    const messages = conversation.toWireMessages(turn);
    if (opts.stream) {
      for await (const e of streamChat(settings, messages, { signal: controller.signal })) await handle(e);
    } else {
      const r = await completeChat(settings, messages, { signal: controller.signal }, (e) => void handle(e));
      if (r.reasoning) await handle({ type: 'reasoning', text: r.reasoning });
      if (r.content) await handle({ type: 'content', text: r.content });
      if (r.usage) await handle({ type: 'usage', usage: r.usage });
      await handle({ type: 'end', id: r.id, model: r.model, finishReason: r.finishReason });
    }
  } catch (e) {
    failure = toMedchatError(e);
  } finally {
    removeSignals();
  }

  if (out.closed) return ExitCode.ok; // the reader went away (`| head`): stop quietly
  await closeReasoning();
  if (stoppedBy) failure = new MedchatError('interrupted; the partial answer above is kept', exitCodeForSignal[stoppedBy] as never, 'interrupted');

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
    if (failure) obj.error = { message: failure.message, exit_code: failure.exitCode };
    await out.write(JSON.stringify(obj) + '\n');
  } else if (opts.jsonl && failure) {
    await out.write(JSON.stringify({ type: 'error', message: failure.message, exit_code: failure.exitCode }) + '\n');
  } else if (!opts.jsonl && outTty && result.content && !result.content.endsWith('\n')) {
    await out.write('\n');
  }
  if (failure) {
    await err.write(red(`medchat: ${sanitizeForTerminal(failure.message)}`, errColour) + '\n');
  }
  await out.flush();
  await err.flush();
  return failure ? failure.exitCode : ExitCode.ok;
}
