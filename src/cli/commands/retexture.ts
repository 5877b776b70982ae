import type { Command } from 'commander';
import { addServiceOptions } from '../options.js';

/** Options shared by `retexture` (with --wait) and `task`. */
export function addFollowOptions(cmd: Command): Command {
  return cmd
    .option('--wait', 'follow the task until it finishes; print the image URL')
    .option('-o, --output <path>', 'download the finished image to this file or folder (- for stdout); implies --wait')
    .option('--json', "print the service's JSON (ids as strings) instead of plain text")
    .option('--poll-interval <seconds>', 'first wait between polls, backing off to 5× (at most 10 s) (default 2)')
    .option('--timeout <seconds>', 'give up after this long, the whole command (submit, waiting, download); exit code 7 with the task id (default 900)')
    .option('--preview', 'draw the finished image on stderr when it is a terminal; implies --wait');
}

export function registerRetexture(program: Command): void {
  const cmd = program
    .command('retexture')
    .description('submit an image and a prompt for redrawing; prints the task id (or, with --wait, the result)')
    .argument('[prompt...]', 'what to change (same as --prompt)')
    .option('-p, --prompt <text>', 'what to change')
    .option('-i, --image <file|url|->', 'the image: a PNG/JPEG/WebP/GIF file, an http(s):// link, or - for stdin')
    .option('--state <text>', 'a marker of yours, returned in the task record')
    .option('--notify-hook <url>', 'the service POSTs the task record here on each change')
    .option('--no-storage', 'ask the service not to store the result')
    .option('--max-image-mb <n>', 'refuse images larger than this (default 25)');
  addFollowOptions(cmd);
  addServiceOptions(cmd);
  cmd.addHelpText(
    'after',
    `
Examples:
  id=$(medchat retexture --image scan.png "make it a watercolour")
  medchat retexture --image https://example.com/a.jpg "pencil sketch" --wait
  curl -s https://example.com/a.png | medchat retexture --image - "oil painting" --output out.png
  medchat task "$id" --wait --output result.png

Exit codes: 0 done, 1 service or network failure, 2 usage error or bad image, 3 key refused,
5 the service rejected the job, 6 the task failed or was cancelled, 7 deadline passed,
130 Ctrl+C (143 SIGTERM, 129 SIGHUP).`,
  );
  cmd.action(async (words: string[], o) => {
    const { runRetextureCommand, endPromptly } = await import('./retexture-run.js');
    try {
      process.exitCode = await runRetextureCommand(words, o);
    } finally {
      endPromptly();
    }
  });
}
