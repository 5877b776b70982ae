import { sanitizeForTerminal } from '../../core/text/sanitize.js';
import type { Settings } from '../../core/config/settings.js';
import type { NewItem } from './screen-state.js';
import { uiChatText } from '../../core/i18n/messages/ui-chat.js';

interface RetextureHost {
  readonly settings: Settings;
  /** The screen's width now (the preview is drawn to fit). */
  readonly columns: number;
  previewProtocol: 'blocks' | 'ascii';
  pollMs?: number;
  /** The job's deadline (default: the job's own, 15 minutes). */
  timeoutMs?: number;
  print(...items: NewItem[]): void;
  /** Run the work as the screen's one job (see JobRunner). */
  runJob(label: string, work: (signal: AbortSignal) => Promise<void>): Promise<void>;
  setJobLabel(label: string): void;
}

/** `/retexture <image> <prompt>`: submit, follow the task on one live line, then print the URL and a preview. */
export async function retextureJob(host: RetextureHost, args: string): Promise<void> {
  const { splitImageAndPrompt, runRetextureJob } = await import('../../core/retexture/index.js');
  const { image, prompt } = splitImageAndPrompt(args);
  host.print({ kind: 'user', text: sanitizeForTerminal(`/retexture ${image} ${prompt}`) });
  await host.runJob(uiChatText.retextureSending, async (signal) => {
    // The job `medchat retexture --wait` runs: its failures, deadline and stop read the same here.
    const r = await runRetextureJob({
      connection: host.settings,
      image,
      prompt,
      signal,
      ...(host.pollMs ? { pollIntervalMs: host.pollMs } : {}),
      ...(host.timeoutMs ? { timeoutMs: host.timeoutMs } : {}),
      preview: { protocol: host.previewProtocol, columns: Math.max(8, Math.min(32, host.columns - 4)) },
      onEvent: (e) => {
        if (e.type === 'submitted') host.setJobLabel(uiChatText.retextureSubmitted(e.taskId));
        else if (e.type === 'progress' && e.changed) host.setJobLabel(uiChatText.retextureProgress(e.taskId, e.label));
        else if (e.type === 'retrying') host.setJobLabel(uiChatText.retextureRetrying(e.taskId, e.message));
        else if (e.type === 'downloading') host.setJobLabel(uiChatText.retextureFetching(e.taskId));
      },
    });
    const done: NewItem[] = [
      { kind: 'notice', tone: 'info', text: sanitizeForTerminal(uiChatText.retextureDone(r.taskId)) },
      { kind: 'notice', tone: 'plain', text: sanitizeForTerminal(r.imageUrl ?? '') },
    ];
    // The preview is medchat's own drawing (coloured blocks), printed as it is.
    if (r.preview) done.push({ kind: 'notice', tone: 'plain', text: r.preview.text.replace(/\n+$/, '') });
    else if (r.previewProblem) done.push({ kind: 'notice', tone: 'info', text: sanitizeForTerminal(r.previewProblem) });
    host.print(...done);
  });
}
