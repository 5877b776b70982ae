import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readTextFileBounded } from '../core/io/bounded-read.js';

/** The largest draft taken back from the editor (the most one-shot takes on stdin for a 1M-token window). */
const MAX_DRAFT_BYTES = 16 * 1024 * 1024;

/** Ctrl+G: edit the draft in $VISUAL / $EDITOR (a private temp file), return the result or undefined. */
export function editInExternalEditor(draft: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const editor = env.VISUAL || env.EDITOR || (process.platform === 'win32' ? 'notepad' : 'vi');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'medchat-draft-'));
  const file = path.join(dir, 'draft.md');
  try {
    fs.writeFileSync(file, draft, { mode: 0o600 });
    const r =
      process.platform === 'win32'
        ? spawnSync(editor, [file], { stdio: 'inherit', shell: true })
        : spawnSync(env.SHELL || '/bin/sh', ['-c', `${editor} "$1"`, 'medchat-editor', file], { stdio: 'inherit' });
    if (r.error || r.status !== 0) return undefined;
    // The editor may have left anything there (a link, a huge file): read it as -f would, bounded.
    return readTextFileBounded(file, { maxBytes: MAX_DRAFT_BYTES, what: file }).replace(/\n$/, '');
  } catch {
    return undefined;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
