// `medchat completion bash|zsh|fish` prints a script that completes subcommands, flags, flag
// values and config keys. Bash is exercised for real; zsh and fish are syntax-checked when
// those shells are installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { BIN, cliEnv, runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const has = (shell: string) => spawnSync(shell, ['-c', 'true'], { stdio: 'ignore' }).status === 0;

/** What bash offers after `line` (a trailing space means: completing a new word). */
function bashComplete(script: string, line: string): string[] {
  const file = path.join(tempDir('medchat-comp-'), 'medchat.bash');
  fs.writeFileSync(file, script);
  const r = spawnSync('bash', ['-c', `source "$1"; read -ra COMP_WORDS <<< "$2"; [[ "$2" == *" " ]] && COMP_WORDS+=(""); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _medchat; printf '%s\\n' "\${COMPREPLY[@]}"`, 'bash', file, line], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean);
}

test('bash: sourcing the script registers medchat, and it completes subcommands, flags, values and config keys', async () => {
  const r = await runCli(['completion', 'bash']);
  assert.equal(r.code, 0);
  assert.equal(r.stderr, '');
  // As the user sets it up: source <(medchat completion bash)
  const reg = spawnSync('bash', ['-c', 'source <("$0" "$1" completion bash) && complete -p medchat', process.execPath, BIN], { encoding: 'utf8', env: cliEnv({}) });
  assert.equal(reg.stdout.trim(), 'complete -o default -F _medchat medchat', reg.stderr);
  const top = bashComplete(r.stdout, 'medchat ');
  for (const c of ['config', 'sessions', 'retexture', 'task', 'completion']) assert.ok(top.includes(c), `${c} in ${top}`);
  assert.deepEqual(bashComplete(r.stdout, 'medchat --no-t'), ['--no-think']);
  assert.deepEqual(bashComplete(r.stdout, 'medchat --reasoning '), ['show', 'hide']);
  assert.deepEqual(bashComplete(r.stdout, 'medchat retexture --im'), ['--image']);
  assert.deepEqual(bashComplete(r.stdout, 'medchat config set api'), ['api-key', 'api-key-command']);
  assert.deepEqual(bashComplete(r.stdout, 'medchat sessions ex'), ['export']);
  assert.deepEqual(bashComplete(r.stdout, 'medchat --model '), [], 'a flag value is left to the user');
});

test('zsh and fish scripts cover the same commands and flags (syntax-checked when the shell is installed)', async (t) => {
  const zsh = await runCli(['completion', 'zsh']);
  assert.equal(zsh.code, 0);
  assert.match(zsh.stdout, /^#compdef medchat/);
  assert.match(zsh.stdout, /bashcompinit/);
  assert.match(zsh.stdout, /complete -o default -F _medchat medchat/);
  const fish = await runCli(['completion', 'fish']);
  assert.equal(fish.code, 0);
  assert.match(fish.stdout, /complete -c medchat -n '__fish_use_subcommand' -a retexture/);
  assert.match(fish.stdout, /-l no-think/);
  assert.match(fish.stdout, /-l reasoning -x -a 'show hide'/);
  assert.match(fish.stdout, /-a 'base-url api-key api-key-command /);
  for (const [shell, text] of [['zsh', zsh.stdout], ['fish', fish.stdout]] as const) {
    if (!has(shell)) {
      t.diagnostic(`${shell} is not installed: its script was not syntax-checked`);
      continue;
    }
    const check = spawnSync(shell, ['-n'], { input: text, encoding: 'utf8' });
    assert.equal(check.status, 0, `${shell} -n: ${check.stderr}`);
  }
});

test('an unknown shell: one line, exit 2', async () => {
  const r = await runCli(['completion', 'tcsh']);
  assert.equal(r.code, 2);
  assert.equal(r.stderr, 'medchat: no completion for "tcsh"; choose bash, zsh or fish\n');
  assert.equal(r.stdout, '');
});
