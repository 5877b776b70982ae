import type { PrivacyChoice } from '../../core/privacy/choice.js';
import type { ActiveRole } from '../../core/request/roles/active.js';
import type { SessionStore } from '../../core/sessions/store.js';
import type { SlashCommand } from '../slash/types.js';

/** How run-interactive (and the tests) set up a chat screen: what it starts with, and what it may do to the terminal. */
export interface ControllerOptions {
  system?: string;
  version: string;
  columns?: number;
  rows?: number;
  /** Raw writes to the terminal: control strings that print nothing and leave the cursor (OSC 52). */
  write?: (data: string) => void;
  /** Draw the live region again where it is (Ctrl+L, back from the editor); nothing printed above it is touched. */
  redraw?: () => void;
  /** Open the full-screen transcript viewer (Ctrl+O, /reasoning). */
  openTranscript?: () => void;
  /** Prompt history file; undefined keeps history in memory only. */
  historyFile?: string;
  /** Opens the draft in $VISUAL/$EDITOR; returns the edited text, or undefined. */
  openEditor?: (draft: string) => string | undefined;
  commands?: readonly SlashCommand[];
  /** Continue a saved session (id, unique prefix or `latest`). */
  resume?: string;
  /** Write nothing: no session file, no prompt history. */
  incognito?: boolean;
  /** `medchat demo`: the header and footer say so. */
  demo?: boolean;
  /** Where sessions are saved (tests use a temporary folder). Default: the data directory. */
  store?: SessionStore;
  /** How `/retexture` draws its preview inside the screen: coloured blocks, or plain characters without colour. */
  previewProtocol?: 'blocks' | 'ascii';
  /** Task polling interval for `/retexture` (tests poll faster). */
  retexturePollMs?: number;
  /** A role in use from the start (`-r NAME`): shown in the header; see setRole. */
  role?: ActiveRole;
  /** The patient-identifier guard (config `privacy`, --privacy): undefined or off, questions go as typed. */
  privacy?: PrivacyChoice;
}
