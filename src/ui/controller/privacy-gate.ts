/**
 * The patient-identifier guard in the chat screen: every question passes here before it is sent.
 * In warn mode a question with identifiers waits for the user's choice (send anyway, redact, edit:
 * see warn-prompt.ts); in redact mode it goes out with placeholders. The decision is handed to the
 * question pipeline (core/ask) with this conversation's guard, which sends it and puts the
 * answer's values back (the screen marks them ⟦like this⟧). The guard's code is loaded when the
 * first question is about to be sent, not at start-up. No I/O, no React.
 */
import type { Turn } from '../../core/context/conversation.js';
import type { PrivacyChoice } from '../../core/privacy/choice.js';
import type { SessionPrivacy } from '../../core/privacy/session-privacy.js';
import type { KeyInfo, WarnDecision, WarnPrompt } from '../../core/privacy/warn-prompt.js';
import { sanitizeForTerminal } from '../../core/text/sanitize.js';
import type { PrivacyAskView } from './screen-state.js';
import { uiChatText } from '../../core/i18n/messages/ui-chat.js';

/** What the gate needs of the chat screen. */
export interface GateHost {
  /** Print the question as typed (it waits under its privacy line). */
  show(typed: string): void;
  /** `breakAt`: where a long line may be cut (between the counts of what was found, never inside one). */
  notice(text: string, tone?: 'info' | 'warn' | 'error', breakAt?: string): void;
  /** Send: `typed` is what the user sees; `decision.text` what goes on the wire; `shown` when the question is printed already. */
  send(typed: string, decision: Extract<WarnDecision, { do: 'send' }>, shown: boolean): void;
  /** Put the text back in the input box; false when the box was not empty. */
  giveBack(text: string): boolean;
  changed(): void;
}

export class PrivacyGate {
  private privacy: SessionPrivacy | undefined;
  private prompt: WarnPrompt | undefined;
  private loading: Promise<void> | undefined;
  /** While asking: the keys, for the input box. */
  private choices: string | undefined;
  /** While asking: what was typed that is no choice (shown, so it is not lost without a word). */
  private notTyped = '';

  constructor(
    private readonly choice: PrivacyChoice | undefined,
    private readonly turns: () => readonly Turn[],
  ) {}

  /** The guard is loading for a question, or a question waits for the user's choice. */
  private loadingFor = false;

  get busy(): boolean {
    return this.loadingFor || this.asking;
  }

  /** Enter on a question: loads the guard (the first time), then sends it, or asks, as the mode says. */
  question(text: string, host: GateHost): void {
    this.loadingFor = true;
    host.changed();
    void this.ready().then(
      () => {
        this.loadingFor = false;
        this.decide(this.prompt!.submit(text), text, false, host);
      },
      (err: unknown) => {
        this.loadingFor = false;
        host.notice(uiChatText.guardFailed((err as Error).message), 'error');
        host.giveBack(text);
      },
    );
  }

  /**
   * A key while asking; false when nothing is being asked. Text that is no choice (and anything
   * `pasted`, which is never a choice) is not typed into the box: the box says so, naming it.
   */
  key(input: string, info: KeyInfo, host: GateHost, pasted = false): boolean {
    if (!this.prompt?.asking) return false;
    const d: WarnDecision = pasted ? { do: 'wait' } : this.prompt.key(input, info);
    if (d.do !== 'wait') {
      this.choices = undefined;
      this.notTyped = '';
      this.decide(d, '', true, host);
    } else if (input && !info.ctrl) {
      this.notTyped += input;
      host.changed();
    }
    return true;
  }

  /** What the input box shows while a question waits for the user's choice; undefined otherwise. */
  get view(): PrivacyAskView | undefined {
    if (!this.asking || !this.choices) return undefined;
    const typed = sanitizeForTerminal(this.notTyped.replace(/\s+/g, ' '));
    const shown = [...typed].length > 24 ? `…${[...typed].slice(-23).join('')}` : typed;
    return { choices: this.choices, ...(shown.trim() ? { notTyped: shown } : {}) };
  }

  private decide(d: WarnDecision, typed: string, shown: boolean, host: GateHost): void {
    switch (d.do) {
      case 'send':
        if (d.redacted && d.question.line) host.notice(d.question.line, 'info', ', ');
        else if (shown) host.notice(uiChatText.sentAsTyped);
        host.send(d.question.typed, d, shown);
        return;
      case 'ask':
        this.choices = d.choices;
        this.notTyped = '';
        host.show(typed);
        host.notice(d.found, 'warn', ', ');
        return;
      case 'edit':
        host.notice(uiChatText.notSentBackInBox, 'warn');
        if (!host.giveBack(d.text)) host.notice(uiChatText.boxNotEmpty);
        return;
      default:
        return;
    }
  }

  /** Whether questions pass through the guard at all (privacy is not off). */
  get active(): boolean {
    return this.choice !== undefined && this.choice.mode !== 'off';
  }

  /** Load the guard (once) and open it for the conversation as it is now. */
  ready(): Promise<void> {
    this.loading ??= Promise.all([import('../../core/privacy/session-privacy.js'), import('../../core/privacy/warn-prompt.js')]).then(([sp, wp]) => {
      this.open = () => {
        this.privacy = sp.SessionPrivacy.open(this.turns(), this.choice!);
        this.prompt = new wp.WarnPrompt(this.privacy);
      };
      this.open();
    });
    return this.loading;
  }

  private open: () => void = () => {};

  /** The conversation changed (/new, /resume): placeholders start again from its own questions. */
  reset(): void {
    if (this.privacy) this.open();
  }

  /** A question is waiting for the user's choice: keys go to `key`. */
  get asking(): boolean {
    return this.prompt?.asking ?? false;
  }

  /** This conversation's guard, for the question pipeline (undefined until loaded, or when off). */
  get guard(): SessionPrivacy | undefined {
    return this.privacy;
  }
}
