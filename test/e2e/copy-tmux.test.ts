import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { BIN, tempHome, waitFor } from '../support/cli.js';
import { tmuxSkip } from '../support/tmux.js';

// /copy inside tmux, with tmux's default settings (set-clipboard external, allow-passthrough off):
// the real bin in a tmux server of its own, which medchat reaches through $TMUX as it would in
// a user's session. What /copy copied is read back with `tmux show-buffer`.
const server = `medchat-copy-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', server, ...args], { encoding: 'utf8' });
/** The screen with wrapped rows joined, so a long notice reads as one line. */
const screen = () => tmux('capture-pane', '-p', '-J', '-t', server);

let double: ServiceDouble;
let home: string | undefined;
let socket: string | undefined;
before(async () => {
  double = await startServiceDouble();
});
after(async () => {
  spawnSync('tmux', ['-L', server, 'kill-server'], { stdio: 'ignore' });
  if (socket) fs.rmSync(socket, { force: true });
  if (home) fs.rmSync(home, { recursive: true, force: true, maxRetries: 5 });
  await double.close();
});

const CODE = 'for f in *.csv; do\n\tawk -F, \'{ s += $3 } END { print s }\' "$f"   # total mg\ndone';
const LONG = `curl -s 'https://api.example.org/v1/doses?drug=paracetamol&weight=${'7'.repeat(150)}'`;
const ANSWER = `Sum the doses:\n\n\`\`\`bash\n${CODE}\n\`\`\`\n\nOr ask the service:\n\n\`\`\`sh\n${LONG}\n\`\`\`\n`;

async function type(line: string): Promise<void> {
  tmux('send-keys', '-t', server, '-l', line);
  await waitFor(() => screen().includes(`│ › ${line}`), 5000, () => `${line} in the box\n${screen()}`);
  // Enter is ignored while the screen settles the previous answer: press until the line leaves the box.
  for (let i = 0; i < 20 && screen().includes(`│ › ${line}`); i++) {
    tmux('send-keys', '-t', server, 'Enter');
    await waitFor(() => !screen().includes(`│ › ${line}`), 500, 'the line to be sent').catch(() => undefined);
  }
}

test('/copy inside tmux lands in tmux\'s paste buffer (show-buffer), and the notice says so', { skip: tmuxSkip }, async () => {
  home = tempHome();
  const env = {
    HOME: home,
    MEDCHAT_CONFIG_DIR: path.join(home, 'config'),
    MEDCHAT_DATA_DIR: path.join(home, 'data'),
    MEDCHAT_BASE_URL: double.url,
    MEDCHAT_API_KEY: 'sk-test-copy',
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
  };
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const vars = Object.entries(env).map(([k, v]) => `${k}=${q(v)}`).join(' ');
  // TMUX and TMUX_PANE are the server's own: medchat's `tmux load-buffer` reaches this server.
  const script = `env -i PATH="$PATH" TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" ${vars} ${q(process.execPath)} ${q(BIN)}; echo "medchat exited $?"; sleep 60`;
  double.chat.enqueue({ reasoning: [], content: [ANSWER] });
  tmux('new-session', '-d', '-s', server, '-x', '100', '-y', '40', script);
  socket = tmux('display-message', '-p', '#{socket_path}').trim();
  await waitFor(() => screen().includes('Enter send'), 10_000, () => `the chat screen\n${screen()}`);
  await new Promise((r) => setTimeout(r, 200));
  tmux('send-keys', '-t', server, '-l', 'how do I add them up?');
  await waitFor(() => screen().includes('› how do I add them up?'), 5000, () => `the question in the box\n${screen()}`);
  tmux('send-keys', '-t', server, 'Enter');
  await waitFor(() => /Or ask the service[\s\S]*\d+ in · \d+ out/.test(screen()), 10_000, () => `the answer\n${screen()}`);
  // The long line is drawn cut, with a continuation mark.
  assert.match(screen(), /^↪ 7+'$/m);

  await type('/copy code 1');
  await waitFor(() => screen().includes(`copied code block 1 of 2 (bash) (${CODE.length} characters) to tmux's paste buffer (prefix + ])`), 10_000, () => `the notice\n${screen()}`);
  assert.equal(tmux('show-buffer'), CODE);

  await type('/copy code');
  await waitFor(() => screen().includes('copied code block 2 of 2 (sh)'), 10_000, () => `the notice\n${screen()}`);
  assert.equal(tmux('show-buffer'), LONG, 'the whole line, with no continuation mark or newline in it');

  await type('/copy');
  await waitFor(() => screen().includes(`copied the last answer (${ANSWER.length.toLocaleString('en-US')} characters) to tmux's paste buffer`), 10_000, () => `the notice\n${screen()}`);
  assert.equal(tmux('show-buffer'), ANSWER);
  // Nothing claimed that is not known: no client is attached, so no "terminal's clipboard".
  assert.doesNotMatch(screen(), /through tmux|OSC 52/);

  tmux('send-keys', '-t', server, 'C-d');
  await waitFor(() => screen().includes('medchat exited 0'), 10_000, () => `medchat to exit\n${screen()}`);
});
