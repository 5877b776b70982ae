import { main } from './cli.js';

// A reader that goes away (`medchat --help | head -1`) ends medchat quietly, never with an EPIPE trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
}

void main();
