import { createElement } from 'react';
import { render } from 'ink-testing-library';
import type { Settings } from '../../src/core/config/settings.js';
import type { ServiceDouble } from '../../src/stand-in/index.js';
import { testSettings } from './settings.js';
import { App, type KeyOverlay } from '../../src/ui/components/App.js';
import { ChatController, type ControllerOptions } from '../../src/ui/controller/chat-controller.js';
import { stripAnsi } from '../../src/core/text/width.js';
import { WAIT_MS, waitFor } from './cli.js';

export { testSettings };

/** The messages of the double's `i`th chat request (negative counts from the end), as the service got them. */
export function sentMessages(double: ServiceDouble, i: number): Array<{ role: string; content: string }> {
  return (double.chat.requests.at(i)?.body as { messages: Array<{ role: string; content: string }> }).messages;
}

/** The whole chat screen in ink-testing-library, talking to the real double over HTTP. */
/** `overlay`: a full-screen view that takes the keys while open (the transcript viewer). */
export async function renderChat(baseUrl: string, opts: Partial<ControllerOptions> & { settings?: Partial<Settings>; overlay?: KeyOverlay } = {}) {
  const writes: string[] = [];
  const controller = new ChatController(testSettings(baseUrl, opts.settings), {
    version: '0.0.0-test',
    columns: 100,
    rows: 30,
    write: (d) => writes.push(d),
    ...opts,
  });
  // What the box holds, as the screen last told the controller, and how many lines were submitted:
  // `send` waits on these instead of on the clock, so a busy machine cannot make it press Enter
  // before the typed text is in the box, or look for the answer before the line was taken.
  let draft = '';
  let submitted = 0;
  const setDraft = controller.setDraft.bind(controller);
  controller.setDraft = (text: string) => {
    draft = text;
    setDraft(text);
  };
  const submit = controller.submit.bind(controller);
  controller.submit = (text: string) => {
    submitted++;
    return submit(text);
  };
  const ui = render(createElement(App, { controller, overlay: opts.overlay }));
  const screen = () => stripAnsi(ui.lastFrame() ?? '');
  // Keys typed before the screen listens would be lost: wait until Ink reads stdin.
  await waitFor(() => ui.stdin.listenerCount('readable') > 0, WAIT_MS, 'the chat screen to listen for keys');
  return {
    ui,
    controller,
    writes,
    screen,
    /** Type text, then (separately, like a person) press keys. */
    type: (text: string) => ui.stdin.write(text),
    press: (seq: string) => ui.stdin.write(seq),
    waitForText: (text: string | RegExp, ms = WAIT_MS) =>
      waitFor(() => (typeof text === 'string' ? screen().includes(text) : text.test(screen())), ms, () => `screen to show ${text}\n--- screen ---\n${screen()}`),
    /** Send a line as the user would: type it, then Enter. */
    async send(line: string) {
      const before = submitted;
      ui.stdin.write(line);
      await waitFor(() => draft.endsWith(line), WAIT_MS, () => `the box to hold ${JSON.stringify(line)} (it holds ${JSON.stringify(draft)})`);
      ui.stdin.write('\r');
      await waitFor(() => submitted > before, WAIT_MS, () => `Enter to submit ${JSON.stringify(line)}`);
    },
    async idle() {
      await waitFor(() => !controller.busy, WAIT_MS, 'the answer to finish');
      await controller.idle();
      await new Promise((r) => setTimeout(r, 80)); // one frame
    },
  };
}
