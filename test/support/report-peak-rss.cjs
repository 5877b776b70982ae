// Preloaded (`node --require`) into the medchat child by watched-run.ts: at exit, write the
// process's peak resident memory (VmHWM, kB) to $MEDCHAT_TEST_PEAK_FILE. Sampling from outside
// can miss the last milliseconds; this cannot. Test support only; never part of the build.
const fs = require('node:fs');
process.on('exit', () => {
  const file = process.env.MEDCHAT_TEST_PEAK_FILE;
  if (!file) return;
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kb) fs.writeFileSync(file, kb);
  } catch {
    /* no /proc here: the sampled figure stands */
  }
});
