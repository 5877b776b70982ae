/**
 * Retexture for any front end (the chat screen's `/retexture`, the `medchat retexture` and
 * `medchat task` commands): the one job they all run (job.ts), and what they present it with.
 */
import { usageError } from '../errors.js';
import { retextureText } from '../i18n/messages/retexture.js';

export { runRetextureJob } from './job.js';
export type { RetextureEvent, RetextureJobOptions, RetextureJobResult } from './job.js';

/**
 * Split the text after `/retexture` into the image and the prompt. The image is the first word;
 * quote it ("my scan.png" or 'my scan.png') when its path has spaces.
 */
export function splitImageAndPrompt(args: string): { image: string; prompt: string } {
  const t = args.trim();
  const m = /^(?:"([^"]*)"|'([^']*)'|(\S+))\s*([\s\S]*)$/.exec(t);
  if (!m || !(m[1] ?? m[2] ?? m[3])) throw usageError(retextureText.slashUsage);
  const image = (m[1] ?? m[2] ?? m[3])!.replace(/^~(?=\/)/, process.env.HOME ?? '~');
  const prompt = (m[4] ?? '').trim();
  if (!prompt) throw usageError(retextureText.slashNeedsPrompt);
  return { image, prompt };
}
