import Conf from 'conf';

/**
 * conf, the config file's writer. Only writes need it: reading is plain JSON (config-store.ts). conf imports ajv at
 * its top level (~20 ms before the chat screen's first paint), so the bundle swaps this file for a lazy `require`
 * (bin/build.mjs), and conf's modules run only when a write first calls this. From src/ (tests) it is an ordinary import.
 */
export function loadConf(): typeof Conf {
  return Conf;
}
