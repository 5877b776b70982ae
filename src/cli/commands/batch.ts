import { Option, type Command } from 'commander';
import { addServiceOptions, settingsFlags, warnAboutKeyFlag } from '../options.js';
import { addPrivacyOptions } from './privacy-options.js';
import { addRoleOption, addSchemaOptions } from './script-options.js';

/** The options of `medchat batch` besides the service ones (defined here, so cli/program.ts stays as it is). */
function addBatchOptions(cmd: Command): Command {
  return cmd
    .option('-o, --output <file>', 'append the answers here (JSON lines); rerunning skips what is answered (default: stdout, no resume)')
    .option('-j, --jobs <n>', 'questions in flight at once; lowered by itself when the service limits requests (default 4)')
    .option('--lines', 'the input is plain text, one question per line; its line number is its id')
    .option('--ordered', 'write the answers in input order (default: as each finishes)')
    .option('-s, --system <text>', 'system prompt for every question (after the role\'s; a line\'s own "system" comes after it)')
    .option('--think', 'ask the model to reason first (default: config `thinking`, on)')
    .option('--no-think', 'answer without reasoning (faster)')
    .option('--max-tokens <n>', 'most tokens each answer may use (default 8192)')
    .option('--temperature <n>', 'sampling temperature (default: the service default)')
    .option('--top-p <n>', 'nucleus sampling (default: the service default)')
    .option('-m, --model <name>', 'model (default medical-large-latest)')
    .option('--retries <n>', 'attempts after the first for each question on 429/503/5xx or a dropped connection (default 4)')
    .addOption(new Option('--idle-timeout <seconds>', 'give up on a request when no data arrives for this long (default 120)'));
}

export function registerBatch(program: Command): void {
  const cmd = program
    .command('batch')
    .description('answer many questions from a JSON-lines file (or stdin): resumable, rate-aware, one answer line each')
    .argument('<input>', 'questions, one JSON object a line: {"id": …, "prompt": "…"} or {"id": …, "messages": […]}; - for stdin');
  addBatchOptions(cmd);
  addSchemaOptions(addRoleOption(cmd));
  addPrivacyOptions(cmd);
  addServiceOptions(cmd);
  cmd.addHelpText(
    'after',
    `
Examples:
  medchat batch questions.jsonl -o answers.jsonl          rerun the same line to resume
  medchat batch --lines questions.txt -o answers.jsonl -j 8 --no-think
  jq -c '{id, prompt: .question}' study.jsonl | medchat batch - -o answers.jsonl
  medchat batch notes.jsonl -r soap -o soap.jsonl
  medchat batch notes.jsonl --schema 'name, dose_mg number, route' --schema-multi -o meds.jsonl
  jq -r 'select(.error == null) | [.id, .content] | @tsv' answers.jsonl

Each answer line: {"id", "content", "reasoning"?, "usage", "finish_reason", "error"?}; with --schema
also "value", "valid", "schema_errors", "attempts" (an answer still invalid after one repair: its
"error" has exit_code 9); where the privacy guard found identifiers, "privacy": {mode, found, put_back}.
Exit codes: 0 all answered, 2 unusable input (nothing sent), 10 some questions failed (rerun to
retry them), 1 the run stopped (service down, disk full), 3 key refused, 130 Ctrl+C.`,
  );
  cmd.action(async (source: string, o) => {
    warnAboutKeyFlag(o);
    const { runBatchCommand } = await import('./batch-run.js');
    process.exitCode = await runBatchCommand(source, o, settingsFlags(o));
  });
}
