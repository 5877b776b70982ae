/**
 * What the demo service says. Every reply states that it comes from a demo and is not medical
 * advice, and together they show what the chat screen does: a reasoning block that folds,
 * markdown with a table and a code block, and a long answer streamed at a realistic pace.
 */
interface DemoReply {
  reasoning: string;
  content: string;
}

const NOTICE = '> **Demo reply.** This text comes from medchat\'s built-in demo service, not from a medical model. It is not medical advice.\n\n';

const VITALS = `${NOTICE}## Adult resting vital signs (illustration)

| Sign | Typical adult range | Unit |
|---|---|---|
| Heart rate | 60–100 | beats/min |
| Respiratory rate | 12–20 | breaths/min |
| Blood pressure | < 120 / < 80 | mmHg |
| Temperature | 36.1–37.2 | °C |
| SpO₂ | 95–100 | % |

Ranges differ by age, fitness and source, which is exactly why a *real* answer would cite one.

Scripts can ask the same question and keep only the answer:

\`\`\`bash
medchat --no-think --json -p "normal adult heart rate?" | jq -r .content
\`\`\`

In the chat screen, press **Ctrl+O** to unfold the reasoning above this answer.
`;

const LONG = `${NOTICE}## How medchat streams a long answer

A reasoning model thinks first; medchat shows that as a dim, fixed-height block and folds it to one line when the answer starts. The answer then streams at the pace the service sends it, here about forty tokens a second.

### What stays calm on screen

1. **Finished paragraphs are printed once.** As each paragraph ends, it moves into the transcript above and is never redrawn.
2. **Only the live paragraph is redrawn**, at a bounded frame rate, so a fast stream costs little CPU and writes few bytes to your terminal.
3. **Your scrollback stays.** medchat never clears the screen while an answer streams.

### What is kept

- The whole conversation lives on your machine; the service keeps nothing between requests.
- Reasoning is kept for display and export, and never sent back to the service.
- Near the 128k-token window, older turns are summarised so the conversation can go on.

### Keys worth trying

| Key | What it does |
|---|---|
| Ctrl+O | fold or unfold reasoning |
| Ctrl+C | stop an answer (keeps the partial text) |
| Up / Down | recall earlier prompts |
| Ctrl+J | new line in the input |

Try \`/retexture\` next: \`/retexture demo.png make it look like a watercolour\` submits the sample image to the demo service and follows the task to a finished picture.

That is the end of this demo answer: nothing here is clinical guidance.
`;

const DEFAULT = `${NOTICE}You asked: "{q}".

In the real service, a medical model would answer here. In the demo, try:

- **"vital signs"** for a markdown table and a code block,
- **"long"** for a long answer streamed at a realistic pace,
- \`/help\` for every command, and \`/retexture demo.png <prompt>\` for an image job.
`;

export function demoReply(question: string): DemoReply {
  const q = question.trim().replace(/\s+/g, ' ').slice(0, 120);
  if (/vital|heart|pulse|pressure|table|normal/i.test(q)) {
    return {
      reasoning: 'The user asks about normal values. In a demo I should show a table with typical adult ranges, say they vary by source, and add a short script example. I must say plainly that this is a demo and not medical advice.',
      content: VITALS,
    };
  }
  if (/long|stream|explain|how/i.test(q)) {
    return {
      reasoning: 'A long answer is wanted. I will explain how the screen stays calm while streaming, what is kept where, list a few keys in a table, and end by pointing at the retexture command. Every reply must say it comes from the demo.',
      content: LONG,
    };
  }
  return {
    reasoning: 'This is the demo service. I cannot answer medical questions; I will say so and suggest prompts that show what medchat can do.',
    content: DEFAULT.replace('{q}', q.replace(/"/g, "'")),
  };
}

/** Split text into word-sized chunks (about one token each), keeping whitespace attached. */
export function tokenChunks(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}
