#!/usr/bin/env node
// On Node 22.1 and newer, V8's compiled code for medchat's bundle is cached on disk, so later starts
// skip most parsing and compiling (see bench/startup.ts). The cache lives in the user's cache folder
// (never the temp folder, which medchat leaves as it found it); NODE_COMPILE_CACHE chooses another
// folder and NODE_DISABLE_COMPILE_CACHE=1 turns it off. `medchat demo` promises to write nothing: no
// cache either. Node 20 has no such cache and starts as before.
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';

if (module.enableCompileCache && process.argv[2] !== 'demo' && !process.env.NODE_DISABLE_COMPILE_CACHE) {
  const env = process.env;
  const home = os.homedir();
  const base = env.XDG_CACHE_HOME || (process.platform === 'darwin' ? path.join(home, 'Library', 'Caches') : process.platform === 'win32' ? env.LOCALAPPDATA || path.join(home, 'AppData', 'Local') : path.join(home, '.cache'));
  module.enableCompileCache(env.NODE_COMPILE_CACHE || path.join(base, 'medchat', 'compile-cache'));
}
await import('../dist/medchat.js');
