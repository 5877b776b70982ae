import { messages } from '../catalogue.js';

/** `medchat retexture` and `medchat task` (cli/commands/retexture-run.ts). */
export const cliRetextureText = messages(
  'cli-retexture',
  {
    outputNeedsPath: '--output needs a path (or - for stdout)',
    promptTwice: 'give the prompt once: either --prompt "…" or as an argument',
    givePrompt: 'give a prompt: medchat retexture --image <file|url|-> "<prompt>"',
    giveImage: 'give an image: --image <file|url|-> (- reads it from stdin)',
    stdoutIsTerminal: '--output - writes the image to stdout, which is a terminal; redirect it to a file',
    alreadyExists: (id: string, following: boolean) => `medchat: the service says task ${id} already exists (code 21)${following ? '; following it' : ''}`,
    queued: (id: string, comeBack: string | undefined) => `medchat: task ${id} is queued (code 22)${comeBack === undefined ? '' : '; follow it with: ' + comeBack}`,
    retrying: (message: string) => `${message} (retrying)`,
    savedAnyway: (type: string, file: string) => `medchat: note: the image is ${type}; saved as ${file} anyway`,
    noPreview: 'medchat: no preview: stderr is not a terminal',
  },
  {
    outputNeedsPath: '--output 需要一个路径（或 - 表示 stdout）',
    promptTwice: '提示词只能给一次：用 --prompt "…" 或作为参数',
    givePrompt: '请给出提示词：medchat retexture --image <file|url|-> "<prompt>"',
    giveImage: '请给出图像：--image <file|url|->（- 表示从 stdin 读取）',
    stdoutIsTerminal: '--output - 会把图像写到 stdout，而 stdout 是终端；请重定向到文件',
    alreadyExists: (id, following) => `medchat: 服务称任务 ${id} 已存在（code 21）${following ? '；正在跟踪' : ''}`,
    queued: (id, comeBack) => `medchat: 任务 ${id} 正在排队（code 22）${comeBack === undefined ? '' : '；跟踪命令：' + comeBack}`,
    retrying: (message) => `${message}（正在重试）`,
    savedAnyway: (type, file) => `medchat: 注意：图像为 ${type}；仍保存为 ${file}`,
    noPreview: 'medchat: 无预览：stderr 不是终端',
  },
);
