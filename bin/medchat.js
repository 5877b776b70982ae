#!/usr/bin/env node
// On Node 22.1 and newer, V8's compiled code for medchat's bundle is cached on disk (in the temp folder, per Node
// version), so later starts skip most parsing and compiling (see bench/startup.ts). NODE_DISABLE_COMPILE_CACHE=1
// turns it off. Node 20 has no such cache and starts as before.
import module from 'node:module';

module.enableCompileCache?.();
await import('../dist/medchat.js');
