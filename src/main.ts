import { main } from './cli/program.js';
import { guardStandardStreams } from './core/io/output.js';

// A reader that goes away (`medchat --help | head -1`) ends medchat quietly; a full disk or any
// other write error on stdout ends it with one `medchat:` line and exit 1, never a stack trace.
// One-shot mode handles its own streams (it saves what arrived first).
guardStandardStreams();

void main();
