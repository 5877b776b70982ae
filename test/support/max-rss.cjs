// Preloaded into a medchat child (NODE_OPTIONS=--require …) to report its peak memory: on exit it
// writes process.resourceUsage().maxRSS (kilobytes) to $MEDCHAT_TEST_MAXRSS_FILE.
const fs = require('node:fs');
process.on('exit', () => {
  const file = process.env.MEDCHAT_TEST_MAXRSS_FILE;
  if (file) fs.writeFileSync(file, String(process.resourceUsage().maxRSS));
});
