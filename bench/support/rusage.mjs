// Preloaded into a measured process (`node --import ./bench/support/rusage.mjs …`): on exit it
// writes its CPU time and peak memory to the file named by BENCH_RUSAGE_FILE.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const u = process.resourceUsage();
  if (process.env.BENCH_RUSAGE_FILE) {
    writeFileSync(process.env.BENCH_RUSAGE_FILE, JSON.stringify({ cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, maxRssKb: u.maxRSS }));
  }
});
