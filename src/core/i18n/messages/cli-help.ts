import { messages } from '../catalogue.js';

/**
 * `medchat --help` and every subcommand's help: descriptions of commands, arguments and options,
 * commander's own headings and errors, and the text after the options. Flags, commands and config
 * keys stay English inside the Chinese.
 */
export const cliHelpText = messages(
  'cli-help',
  {
    // commander's own words
    usage: 'Usage:',
    options: 'Options:',
    commands: 'Commands:',
    arguments: 'Arguments:',
    globalOptions: 'Global Options:',
    helpForCommand: 'display help for command',
    seeHelp: (command: string) => ` (see ${command} --help)`,
    choices: 'choices: ',
    defaultValue: 'default: ',
    unknownOption: (flag: string) => `unknown option '${flag}'`,
    unknownCommand: (name: string) => `unknown command '${name}'`,
    didYouMean: (what: string) => `(Did you mean ${what}?)`,
    didYouMeanOneOf: (what: string) => `(Did you mean one of ${what}?)`,
    missingArgument: (name: string) => `missing required argument '${name}'`,
    optionArgumentMissing: (flags: string) => `option '${flags}' argument missing`,
    requiredOption: (flags: string) => `required option '${flags}' not specified`,
    invalidOptionValue: (flags: string, value: string, choices: string) => `option '${flags}' argument '${value}' is invalid. Allowed choices are ${choices}.`,
    tooManyArguments: (command: string, expected: string, got: string) => `too many arguments${command ? ` for '${command}'` : ''}. Expected ${expected} argument${expected === '1' ? '' : 's'} but got ${got}.`,
    conflictingOptions: (a: string, b: string) => `${a} cannot be used with ${b}`,

    // medchat
    program: 'A terminal client for the medical chat service: chat, one-shot answers for scripts, image retexture jobs.',
    version: 'print the version',
    help: 'show help',
    promptArgument: 'a question: answers once on stdout (no prompt on a terminal opens the chat screen)',
    prompt: 'the question (same as the positional prompt)',
    system: 'system prompt',
    think: 'ask the model to reason first (default: config `thinking`, on)',
    noThink: 'answer without reasoning (faster)',
    maxTokens: 'most tokens the answer may use (default 8192)',
    temperature: 'sampling temperature (default: the service default)',
    topP: 'nucleus sampling (default: the service default)',
    model: 'model (default medical-large-latest)',
    noStream: 'wait for the whole answer instead of streaming it',
    idleTimeout: 'give up when no data arrives for this long (default 120)',
    reasoning: 'show reasoning on stderr, or hide it',
    json: 'print one JSON object at the end: id, model, content, reasoning, usage, finish_reason',
    jsonl: 'print one JSON event per line as the answer streams',
    noStdin: 'ignore piped stdin',
    continue: 'continue the last conversation (one-shot and chat screen)',
    resume: 'continue a saved conversation (see medchat sessions list)',
    incognito: 'save nothing on disk: no session, no prompt history',
    baseUrl: 'service root address (overrides config and MEDCHAT_BASE_URL)',
    apiKey: 'API key (visible to other users in the process list; prefer MEDCHAT_API_KEY)',
    role: 'use a role: a system prompt plus settings (see medchat roles list)',
    schema: "answer with one JSON value valid against a JSON Schema file, or inline fields: 'name, dose_mg number, route'",
    schemaMulti: 'with inline fields: an array of such objects',
    file: 'send a text file with the question (repeatable; - reads stdin)',
    privacy: 'patient identifiers in what you send: warn (list them), redact (send placeholders, show the answer with the values back), off (default: config `privacy`, warn)',
    shiftDates: 'with --privacy redact: move all dates by one random offset instead of replacing them (intervals kept)',
    programAfter: `
Examples:
  medchat                                  open the chat screen
  medchat "what is the normal adult heart rate?"
  cat notes.txt | medchat "summarise this"
  medchat --json -p "list three causes of chest pain" | jq -r .content
  medchat -c "and what if she is pregnant?"   continue the last conversation
  medchat retexture --image scan.png "make it a watercolour" --wait
  medchat --schema 'name, dose_mg number, route' "list the medications" < note.txt
  medchat -r soap -f notes.txt              a role (medchat roles list) and a file
  medchat batch questions.jsonl -o answers.jsonl

Exit codes: 0 answered, 1 service or network failure, 2 usage or configuration error,
3 key refused, 4 answer cut off, 8 answer ended early, 9 not valid JSON for --schema,
130 interrupted. See the README for all of them.`,

    // config
    config: 'show or change settings (stored 0600 in your config folder)',
    configSet: 'set a key (api-key with no value reads it from stdin)',
    configSetYes: 'encrypt off: decrypt saved history without asking',
    configGet: 'print one key (secrets masked)',
    configUnset: 'remove a key, back to its default',
    configUnsetYes: 'encrypt: decrypt saved history without asking',
    configList: 'print every key and its value (secrets masked)',
    configPath: 'print where the config file is',

    // sessions
    sessions: 'saved conversations: list, show, export, search, delete',
    sessionsList: 'list saved conversations, newest first',
    sessionsListJson: 'one JSON array: id, title, created_at, updated_at, turns, file',
    sessionsShow: 'print a conversation (id, a unique prefix of one, or "latest")',
    sessionsReasoning: "include the model's reasoning",
    sessionsExport: 'export a conversation as Markdown or JSON (to stdout, or a file with -o)',
    sessionsExportFormat: 'md or json (default: from the -o file name, else md)',
    sessionsExportOutput: 'write to this file (created 0600) instead of stdout',
    sessionsSearch: 'find conversations holding every word (case and accents ignored), newest first, with the matching line and its turn',
    sessionsSearchSince: 'only conversations saved since then: 12h, 7d, 2w or a date (2026-01-01)',
    sessionsSearchRole: 'only conversations started with this role',
    sessionsSearchReasoning: "search the model's reasoning too",
    sessionsSearchLimit: 'at most this many conversations (default 20; 0: all)',
    sessionsSearchJson: 'one JSON array: id, title, last_activity, role, turns, matching_lines, lines (turn, part, text)',
    sessionsPurge: 'delete conversations older than an age or a date (--dry-run: only list them)',
    sessionsPurgeOlderThan: '30d, 12h, 2w or a date (2026-01-01); default: config retention-days',
    sessionsPurgeDryRun: 'list what would be deleted; delete nothing',
    sessionsRm: 'delete conversations (--all: every saved conversation)',
    sessionsRmAll: 'delete every saved conversation',
    sessionsPath: 'print the folder sessions are saved in',

    // retexture and task
    retexture: 'submit an image and a prompt for redrawing; prints the task id (or, with --wait, the result)',
    retexturePromptArgument: 'what to change (same as --prompt)',
    retexturePrompt: 'what to change',
    retextureImage: 'the image: a PNG/JPEG/WebP/GIF file, an http(s):// link, or - for stdin',
    retextureState: 'a marker of yours, returned in the task record',
    retextureNotifyHook: 'the service POSTs the task record here on each change',
    retextureNoStorage: 'ask the service not to store the result',
    retextureMaxImage: 'refuse images larger than this (default 25)',
    followWait: 'follow the task until it finishes; print the image URL',
    followOutput: 'download the finished image to this file or folder (- for stdout); implies --wait',
    followJson: "print the service's JSON (ids as strings) instead of plain text",
    followPollInterval: 'first wait between polls, backing off to 5× (at most 10 s) (default 2)',
    followTimeout: 'give up after this long, the whole command (submit, waiting, download); exit code 7 with the task id (default 900)',
    followPreview: 'draw the finished image on stderr when it is a terminal; implies --wait',
    retextureAfter: `
Examples:
  id=$(medchat retexture --image scan.png "make it a watercolour")
  medchat retexture --image https://example.com/a.jpg "pencil sketch" --wait
  curl -s https://example.com/a.png | medchat retexture --image - "oil painting" --output out.png
  medchat task "$id" --wait --output result.png

Exit codes: 0 done, 1 service or network failure, 2 usage error or bad image, 3 key refused,
5 the service rejected the job, 6 the task failed or was cancelled, 7 deadline passed,
130 Ctrl+C (143 SIGTERM, 129 SIGHUP).`,
    task: 'show a retexture task: its image URL when done, else its status (--wait follows it to the end)',
    taskId: 'the task id that `medchat retexture` printed',
    taskAfter: `
Without --wait: prints the image URL when the task is done, else its status and progress
(e.g. "IN_PROGRESS 45%"); a failed or cancelled task prints its reason on stderr (exit 6).

Examples:
  medchat task 1712345678901234567 --wait
  medchat task 1712345678901234567 --wait --output result.png
  medchat task 1712345678901234567 --json | jq -r .status`,

    // demo
    demo: 'try medchat with a built-in demo service: no account, no key, nothing saved',
    demoPromptArgument: 'ask once and print the answer (like medchat "…"), instead of opening the chat screen',
    demoPrompt: 'ask once (same as the positional prompt)',
    demoNoThink: 'answer without the reasoning block',
    demoJson: 'one-shot: print one JSON object at the end',
    demoJsonl: 'one-shot: print one JSON event per line',
    demoReasoning: 'one-shot: show or hide reasoning on stderr',
    demoFast: 'stream as fast as possible (for trying pipes)',

    // completion
    completion: 'print a shell completion script: bash, zsh or fish (e.g. source <(medchat completion bash))',
    completionShell: 'bash, zsh or fish',

    // privacy
    privacyCommand: 'the patient-identifier guard: check a text for identifiers before it leaves the machine',
    privacyCheck: 'list the identifiers in a file or stdin (-), with line:column; exit 11 when any are found, 0 when none',
    privacyCheckJson: 'one JSON object: found, counts, findings (kind, text, start, end, line, column)',
    privacyCheckRedacted: 'print the text as --privacy redact would send it, instead of the list',
    privacyCheckAfter: `
Finds names (by context: Patient:, Mr/Dr, signatures, "seen by"…), dates more specific than a year,
ages over 89, phone/fax numbers, e-mail addresses, national ids (SSN, NHS number, Chinese id…),
record/account/plan/licence numbers after their labels, street addresses and postcodes, URLs,
IP addresses, device and vehicle ids after their labels. A safety net, not a guarantee.

Exit codes: 0 nothing found, 11 identifiers found, 2 usage error.

Examples:
  medchat privacy check note.txt
  pbpaste | medchat privacy check --json | jq '.counts'
  medchat privacy check --redacted < note.txt > note-redacted.txt`,

    // roles
    roles: 'named clinical presets (system prompt + settings): list, show, edit',
    rolesList: 'list the roles: built-in and yours',
    rolesListJson: 'one JSON array: name, source, description, file, settings',
    rolesShow: 'print a role file: front matter (settings) and system prompt',
    rolesEdit: "edit a role in $VISUAL/$EDITOR (a built-in is copied to your roles folder first; a new name starts from a template); without a terminal, prints the file's path",
    rolesPath: 'print the folder your roles are kept in',

    // batch
    batch: 'answer many questions from a JSON-lines file (or stdin): resumable, rate-aware, one answer line each',
    batchInput: 'questions, one JSON object a line: {"id": …, "prompt": "…"} or {"id": …, "messages": […]}; - for stdin',
    batchOutput: 'append the answers here (JSON lines); rerunning skips what is answered (default: stdout, no resume)',
    batchJobs: 'questions in flight at once; lowered by itself when the service limits requests (default 4)',
    batchLines: 'the input is plain text, one question per line; its line number is its id',
    batchOrdered: 'write the answers in input order (default: as each finishes)',
    batchSystem: 'system prompt for every question (after the role\'s; a line\'s own "system" comes after it)',
    batchMaxTokens: 'most tokens each answer may use (default 8192)',
    batchRetries: 'attempts after the first for each question on 429/503/5xx or a dropped connection (default 4)',
    batchIdleTimeout: 'give up on a request when no data arrives for this long (default 120)',
    batchAfter: `
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

    // audit
    audit: 'the audit log: one line per question or job, with no patient text in it (medchat config set audit on)',
    auditVerify: 'check that no line was changed, removed, moved or cut short; exit 12 when one was',
    auditShow: 'the lines as a table (JSON lines with --json)',
    auditSince: 'only lines from then on: 7d, 12h, 30m, or a date (2026-01-01)',
    auditShowJson: 'the lines as JSON, one a line',
    auditExport: 'the lines exactly as stored (hashes included: verify can check the copy)',

    // policy
    policy: "show your organisation's policy: what it locks, and why (from /etc/medchat/policy.json)",
    policyJson: 'one JSON object: file, present, locked (key, value, meaning)',
    policyAfter: `
An administrator writes the policy (/etc/medchat/policy.json; C:\\ProgramData\\medchat\\policy.json on
Windows); it wins over your config, environment variables and flags. See the README, "For administrators".`,
  },
  {
    usage: '用法：',
    options: '选项：',
    commands: '命令：',
    arguments: '参数：',
    globalOptions: '全局选项：',
    helpForCommand: '显示命令的帮助',
    seeHelp: (command) => `（参见 ${command} --help）`,
    choices: '可选：',
    defaultValue: '默认：',
    unknownOption: (flag) => `未知的选项 '${flag}'`,
    unknownCommand: (name) => `未知的命令 '${name}'`,
    didYouMean: (what) => `（是否想用 ${what}？）`,
    didYouMeanOneOf: (what) => `（是否想用以下之一：${what}？）`,
    missingArgument: (name) => `缺少必需的参数 '${name}'`,
    optionArgumentMissing: (flags) => `选项 '${flags}' 缺少取值`,
    requiredOption: (flags) => `未指定必需的选项 '${flags}'`,
    invalidOptionValue: (flags, value, choices) => `选项 '${flags}' 的取值 '${value}' 无效。可选：${choices}。`,
    tooManyArguments: (command, expected, got) => `${command ? `'${command}' 的` : ''}参数过多：应为 ${expected} 个，实际 ${got} 个。`,
    conflictingOptions: (a, b) => `${a} 不能与 ${b} 同时使用`,

    program: '医疗对话服务的终端客户端：对话、供脚本使用的单次回答、图像重绘任务。',
    version: '显示版本号',
    help: '显示帮助',
    promptArgument: '问题：在 stdout 上回答一次（在终端中不给问题则打开对话界面）',
    prompt: '问题（与位置参数中的问题相同）',
    system: '系统提示词',
    think: '让模型先推理（默认：配置项 `thinking`，开启）',
    noThink: '不推理直接回答（更快）',
    maxTokens: '回答最多可用的 token 数（默认 8192）',
    temperature: '采样温度（默认：服务的默认值）',
    topP: '核采样（默认：服务的默认值）',
    model: '模型（默认 medical-large-latest）',
    noStream: '等待完整回答，不逐字输出',
    idleTimeout: '这么久没有收到数据就放弃（默认 120）',
    reasoning: '在 stderr 上显示推理过程，或隐藏',
    json: '结束时输出一个 JSON 对象：id、model、content、reasoning、usage、finish_reason',
    jsonl: '回答输出过程中每行输出一个 JSON 事件',
    noStdin: '忽略通过管道传入的 stdin',
    continue: '继续上一次对话（单次回答和对话界面均可）',
    resume: '继续一次已保存的对话（见 medchat sessions list）',
    incognito: '不在磁盘上保存任何内容：无会话、无输入历史',
    baseUrl: '服务根地址（优先于配置和 MEDCHAT_BASE_URL）',
    apiKey: 'API 密钥（其他用户可在进程列表中看到；建议改用 MEDCHAT_API_KEY）',
    role: '使用角色：系统提示词加设置（见 medchat roles list）',
    schema: "以一个符合 JSON Schema 文件的 JSON 值回答，或直接给出字段：'name, dose_mg number, route'",
    schemaMulti: '配合直接给出的字段：回答为这类对象的数组',
    file: '随问题发送一个文本文件（可重复；- 表示读取 stdin）',
    privacy: '所发内容中的患者身份信息：warn（列出）、redact（发送占位符，回答中再填回原值）、off（默认：配置项 `privacy`，warn）',
    shiftDates: '配合 --privacy redact：把所有日期平移同一个随机偏移量，而不是替换（间隔不变）',
    programAfter: `
示例：
  medchat                                  打开对话界面
  medchat "what is the normal adult heart rate?"
  cat notes.txt | medchat "summarise this"
  medchat --json -p "list three causes of chest pain" | jq -r .content
  medchat -c "and what if she is pregnant?"   继续上一次对话
  medchat retexture --image scan.png "make it a watercolour" --wait
  medchat --schema 'name, dose_mg number, route' "list the medications" < note.txt
  medchat -r soap -f notes.txt              用角色（medchat roles list）加文件
  medchat batch questions.jsonl -o answers.jsonl

退出码：0 已回答，1 服务或网络故障，2 用法或配置错误，3 密钥被拒，4 回答被截断，
8 回答提前结束，9 不是符合 --schema 的 JSON，130 被中断。完整列表见 README。`,

    config: '查看或修改设置（以 0600 权限保存在配置文件夹中）',
    configSet: '设置一个配置项（api-key 不给值时从 stdin 读取）',
    configSetYes: 'encrypt off：不询问，直接解密已保存的历史',
    configGet: '显示一个配置项（密钥已遮盖）',
    configUnset: '删除一个配置项，恢复默认值',
    configUnsetYes: 'encrypt：不询问，直接解密已保存的历史',
    configList: '显示所有配置项及其值（密钥已遮盖）',
    configPath: '显示配置文件的位置',

    sessions: '已保存的对话：列出、查看、导出、搜索、删除',
    sessionsList: '列出已保存的对话，最新的在前',
    sessionsListJson: '一个 JSON 数组：id、title、created_at、updated_at、turns、file',
    sessionsShow: '显示一次对话（id、其唯一前缀，或 "latest"）',
    sessionsReasoning: '包括模型的推理过程',
    sessionsExport: '将对话导出为 Markdown 或 JSON（输出到 stdout，或用 -o 写入文件）',
    sessionsExportFormat: 'md 或 json（默认：按 -o 的文件名判断，否则 md）',
    sessionsExportOutput: '写入此文件（以 0600 创建），而不是 stdout',
    sessionsSearch: '查找包含所有词语的对话（不区分大小写和重音），最新的在前，附匹配的行及其轮次',
    sessionsSearchSince: '只查此后保存的对话：12h、7d、2w 或日期（2026-01-01）',
    sessionsSearchRole: '只查以此角色开始的对话',
    sessionsSearchReasoning: '同时搜索模型的推理过程',
    sessionsSearchLimit: '最多这么多个对话（默认 20；0：全部）',
    sessionsSearchJson: '一个 JSON 数组：id、title、last_activity、role、turns、matching_lines、lines（turn、part、text）',
    sessionsPurge: '删除早于某个时长或日期的对话（--dry-run：只列出）',
    sessionsPurgeOlderThan: '30d、12h、2w 或日期（2026-01-01）；默认：配置项 retention-days',
    sessionsPurgeDryRun: '列出将被删除的对话；不删除任何内容',
    sessionsRm: '删除对话（--all：所有已保存的对话）',
    sessionsRmAll: '删除所有已保存的对话',
    sessionsPath: '显示保存对话的文件夹',

    retexture: '提交图像和提示词进行重绘；输出任务 id（加 --wait 则输出结果）',
    retexturePromptArgument: '要改变什么（与 --prompt 相同）',
    retexturePrompt: '要改变什么',
    retextureImage: '图像：PNG/JPEG/WebP/GIF 文件、http(s):// 链接，或 - 表示 stdin',
    retextureState: '你自己的标记，会在任务记录中返回',
    retextureNotifyHook: '任务每次变化时，服务会把任务记录 POST 到此地址',
    retextureNoStorage: '要求服务不保存结果',
    retextureMaxImage: '拒绝大于此值的图像（默认 25）',
    followWait: '跟踪任务直到完成；输出图像 URL',
    followOutput: '把完成的图像下载到此文件或文件夹（- 表示 stdout）；隐含 --wait',
    followJson: '输出服务的 JSON（id 为字符串），而不是纯文本',
    followPollInterval: '首次轮询间隔，逐步延长到 5 倍（最多 10 s）（默认 2）',
    followTimeout: '整个命令（提交、等待、下载）超过这么久就放弃；退出码 7 并给出任务 id（默认 900）',
    followPreview: 'stderr 是终端时在其上显示完成的图像；隐含 --wait',
    retextureAfter: `
示例：
  id=$(medchat retexture --image scan.png "make it a watercolour")
  medchat retexture --image https://example.com/a.jpg "pencil sketch" --wait
  curl -s https://example.com/a.png | medchat retexture --image - "oil painting" --output out.png
  medchat task "$id" --wait --output result.png

退出码：0 完成，1 服务或网络故障，2 用法错误或图像有误，3 密钥被拒，
5 服务拒绝了任务，6 任务失败或被取消，7 超过期限，
130 Ctrl+C（143 SIGTERM，129 SIGHUP）。`,
    task: '查看重绘任务：完成时显示图像 URL，否则显示状态（--wait 跟踪到结束）',
    taskId: '`medchat retexture` 输出的任务 id',
    taskAfter: `
不加 --wait：任务完成时输出图像 URL，否则输出状态和进度
（如 "IN_PROGRESS 45%"）；任务失败或被取消时在 stderr 上输出原因（退出码 6）。

示例：
  medchat task 1712345678901234567 --wait
  medchat task 1712345678901234567 --wait --output result.png
  medchat task 1712345678901234567 --json | jq -r .status`,

    demo: '用内置的演示服务试用 medchat：无需账号、无需密钥、不保存任何内容',
    demoPromptArgument: '问一次并输出回答（同 medchat "…"），而不是打开对话界面',
    demoPrompt: '问一次（与位置参数中的问题相同）',
    demoNoThink: '回答时不带推理部分',
    demoJson: '单次回答：结束时输出一个 JSON 对象',
    demoJsonl: '单次回答：每行输出一个 JSON 事件',
    demoReasoning: '单次回答：在 stderr 上显示或隐藏推理过程',
    demoFast: '尽快输出（用于试验管道）',

    completion: '输出 shell 补全脚本：bash、zsh 或 fish（如 source <(medchat completion bash)）',
    completionShell: 'bash、zsh 或 fish',

    privacyCommand: '患者身份信息防护：文本离开本机前检查其中的身份信息',
    privacyCheck: '列出文件或 stdin（-）中的身份信息及其 行:列；发现时退出码 11，没有时 0',
    privacyCheckJson: '一个 JSON 对象：found、counts、findings（kind、text、start、end、line、column）',
    privacyCheckRedacted: '输出 --privacy redact 实际会发送的文本，而不是列表',
    privacyCheckAfter: `
可发现：姓名（依上下文：Patient:、Mr/Dr、签名、"seen by"…）、精确到
年以下的日期、89 岁以上的年龄、电话/传真号码、电子邮件地址、证件号（SSN、
NHS number、中国身份证号…）、标签后的病历/账户/医保/执照号码、街道地址和
邮编、URL、IP 地址、标签后的设备和车辆编号。这是一道安全网，不是保证。

退出码：0 未发现，11 发现身份信息，2 用法错误。

示例：
  medchat privacy check note.txt
  pbpaste | medchat privacy check --json | jq '.counts'
  medchat privacy check --redacted < note.txt > note-redacted.txt`,

    roles: '命名的临床预设（系统提示词 + 设置）：列出、查看、编辑',
    rolesList: '列出角色：内置的和你自己的',
    rolesListJson: '一个 JSON 数组：name、source、description、file、settings',
    rolesShow: '显示角色文件：前置设置（front matter）和系统提示词',
    rolesEdit: '用 $VISUAL/$EDITOR 编辑角色（内置角色先复制到你的角色文件夹；新名称从模板开始）；没有终端时输出文件路径',
    rolesPath: '显示存放你的角色的文件夹',

    batch: '回答 JSON lines 文件（或 stdin）中的大量问题：可续跑、适应限流，每个回答一行',
    batchInput: '问题，每行一个 JSON 对象：{"id": …, "prompt": "…"} 或 {"id": …, "messages": […]}；- 表示 stdin',
    batchOutput: '把回答追加到此文件（JSON lines）；重新运行会跳过已回答的（默认：stdout，不续跑）',
    batchJobs: '同时进行的问题数；服务限流时自动降低（默认 4）',
    batchLines: '输入为纯文本，每行一个问题；行号即其 id',
    batchOrdered: '按输入顺序写出回答（默认：谁先完成先写谁）',
    batchSystem: '每个问题的系统提示词（接在角色的之后；某行自带的 "system" 再接在其后）',
    batchMaxTokens: '每个回答最多可用的 token 数（默认 8192）',
    batchRetries: '遇到 429/503/5xx 或连接中断时，每个问题在首次之后的重试次数（默认 4）',
    batchIdleTimeout: '一个请求这么久没有收到数据就放弃（默认 120）',
    batchAfter: `
示例：
  medchat batch questions.jsonl -o answers.jsonl          再运行一次即续跑
  medchat batch --lines questions.txt -o answers.jsonl -j 8 --no-think
  jq -c '{id, prompt: .question}' study.jsonl | medchat batch - -o answers.jsonl
  medchat batch notes.jsonl -r soap -o soap.jsonl
  medchat batch notes.jsonl --schema 'name, dose_mg number, route' --schema-multi -o meds.jsonl
  jq -r 'select(.error == null) | [.id, .content] | @tsv' answers.jsonl

每个回答行：
  {"id", "content", "reasoning"?, "usage", "finish_reason", "error"?}
加 --schema 时还有 "value"、"valid"、"schema_errors"、"attempts"（修正一次后
仍无效的回答：其 "error" 的 exit_code 为 9）；隐私防护发现身份信息时还有
"privacy": {mode, found, put_back}。
退出码：0 全部已回答，2 输入不可用（未发送任何内容），10 部分问题失败（重新运行
即可重试），1 运行中止（服务不可用、磁盘已满），3 密钥被拒，130 Ctrl+C。`,

    audit: '审计日志：每个问题或任务一行，不含任何患者文本（medchat config set audit on）',
    auditVerify: '检查没有任何一行被修改、删除、移动或截断；有则退出码 12',
    auditShow: '以表格显示各行（加 --json 为 JSON lines）',
    auditSince: '只显示此后的行：7d、12h、30m 或日期（2026-01-01）',
    auditShowJson: '以 JSON 显示各行，每行一个',
    auditExport: '按原样输出各行（含哈希：verify 可检查副本）',

    policy: '查看你所在机构的策略：锁定了什么、为什么（来自 /etc/medchat/policy.json）',
    policyJson: '一个 JSON 对象：file、present、locked（key、value、meaning）',
    policyAfter: `
策略由管理员编写（/etc/medchat/policy.json；Windows 上为
C:\\ProgramData\\medchat\\policy.json）；它优先于你的配置、环境变量和选项。
见 README 的 "For administrators"。`,
  },
);
