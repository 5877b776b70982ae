import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import { importCircles, importGraph, packageImports } from '../support/import-graph.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const rel = (f: string) => path.relative(SRC, f).split(path.sep).join('/');
const show = (circles: ReturnType<typeof importCircles>) =>
  circles.map((c) => `${c.files.length} files: ${c.files.map(rel).join(', ')}\n  e.g. ${c.circle.map(rel).join(' -> ')}`).join('\n');

/**
 * Type-only imports that still close a circle, each waiting for the module it names to be split
 * (the controller's split gives the slash commands a small interface and the transcript items a
 * module of their own). Remove an entry when its import is gone; the last test says when.
 */
const TYPE_EDGES_WAITING: Array<[from: string, to: string]> = [];

test('no import circle in src/: imports point down (static, re-exports and import())', () => {
  const circles = importCircles(importGraph(SRC, { types: false }));
  assert.equal(circles.length, 0, `import circles:\n${show(circles)}`);
});

test('no import circle in src/ through type-only imports either (but the ones waiting for a split)', () => {
  const graph = importGraph(SRC);
  for (const [from, to] of TYPE_EDGES_WAITING) {
    const deps = graph.get(path.join(SRC, from));
    if (deps) graph.set(path.join(SRC, from), deps.filter((d) => rel(d) !== to));
  }
  const circles = importCircles(graph);
  assert.equal(circles.length, 0, `import circles:\n${show(circles)}`);
});

test('the type imports waiting for a split are still there (else: remove them from the list)', () => {
  const graph = importGraph(SRC);
  for (const [from, to] of TYPE_EDGES_WAITING) {
    assert.ok((graph.get(path.join(SRC, from)) ?? []).map(rel).includes(to), `${from} no longer imports ${to}: remove it from TYPE_EDGES_WAITING`);
  }
});

test('only main.ts imports the program (cli/program.ts), and nothing outside cli/ imports anything else of cli/', () => {
  const graph = importGraph(SRC);
  const importers = [...graph].filter(([, deps]) => deps.some((d) => rel(d) === 'cli/program.ts')).map(([f]) => rel(f));
  assert.deepEqual(importers, ['main.ts']);
  const fromOutside = edges(graph).filter(([f, d]) => area(d) === 'cli' && area(f) !== 'cli' && !(rel(f) === 'main.ts' && rel(d) === 'cli/program.ts'));
  assert.deepEqual(fromOutside.map(show1), [], 'only main.ts reaches into cli/, and only for the program');
});

/** The top folder of a source file under src/ (`core`, `ui`, `cli`, `stand-in`, `demo`), or the file itself at the root. */
const area = (f: string) => rel(f).split('/')[0]!;
/** The folder of a core file below core/ (`chat`, `net`, …), or `(root)` for errors.ts and exit-codes.ts. */
const coreFolder = (f: string) => (rel(f).split('/').length > 2 ? rel(f).split('/')[1]! : '(root)');
const edges = (graph: Map<string, string[]>) => [...graph].flatMap(([f, deps]) => deps.map((d) => [f, d] as const));
const show1 = ([f, d]: readonly [string, string]) => `${rel(f)} -> ${rel(d)}`;

test('core/ imports only core/ (no ui/, cli/, stand-in/, demo/), and never React, Ink or commander', () => {
  const graph = importGraph(SRC);
  assert.deepEqual(edges(graph).filter(([f, d]) => area(f) === 'core' && area(d) !== 'core').map(show1), []);
  const packages = [...packageImports(SRC)].filter(([f]) => area(f) === 'core');
  const front = packages.flatMap(([f, ps]) => ps.filter((p) => /^(react|ink|commander)(\/|$)/.test(p)).map((p) => `${rel(f)} imports ${p}`));
  assert.deepEqual(front, []);
});

test('ui/ never imports cli/', () => {
  assert.deepEqual(edges(importGraph(SRC)).filter(([f, d]) => area(f) === 'ui' && area(d) === 'cli').map(show1), []);
});

test('only cli/ imports commander', () => {
  const users = [...packageImports(SRC)].filter(([f, ps]) => area(f) !== 'cli' && ps.some((p) => p === 'commander' || p.startsWith('commander/') || p.startsWith('@commander-js/')));
  assert.deepEqual(users.map(([f]) => rel(f)), []);
});

test('the stand-in service (stand-in/) imports only Node and itself: medchat demo runs it, the tests start it', () => {
  const graph = importGraph(SRC);
  assert.deepEqual(edges(graph).filter(([f, d]) => area(f) === 'stand-in' && area(d) !== 'stand-in').map(show1), []);
  const packages = [...packageImports(SRC)].filter(([f]) => area(f) === 'stand-in');
  assert.deepEqual(packages.flatMap(([f, ps]) => ps.filter((p) => !p.startsWith('node:')).map((p) => `${rel(f)} imports ${p}`)), []);
  assert.ok(packages.length >= 3, 'the stand-in is walked');
});

test('demo/ (the demo replies and sample image) imports only the stand-in and itself', () => {
  const graph = importGraph(SRC);
  assert.deepEqual(edges(graph).filter(([f, d]) => area(f) === 'demo' && !['demo', 'stand-in'].includes(area(d))).map(show1), []);
});

/** Within core/, the layers of one question: a folder imports only folders before it in this list (and any other core/ folder). */
const CORE_LAYERS = ['net', 'chat', 'context', 'sessions', 'ask'];

test('within core/: net < chat < context < sessions < ask (a layer never imports one above it)', () => {
  const upward = edges(importGraph(SRC)).filter(([f, d]) => {
    if (area(f) !== 'core' || area(d) !== 'core') return false;
    const [a, b] = [CORE_LAYERS.indexOf(coreFolder(f)), CORE_LAYERS.indexOf(coreFolder(d))];
    return a >= 0 && b >= 0 && a < b;
  });
  assert.deepEqual(upward.map(show1), []);
});

/**
 * Flag types in core/: the names a command's flags arrive under. Each entry is a file and the name it still declares,
 * waiting for the one question pipeline to take settings and a plan instead of flags (FlagValues: the settings'
 * overrides by config key; PlanFlags and plannerForFlags: the request plan built from --role, --system, --schema, -f).
 * Remove an entry when the name is gone; the test says when. No new name may join.
 */
const CORE_FLAG_TYPES_WAITING: Array<[file: string, name: string]> = [
  ['core/config/settings.ts', 'FlagValues'],
  ['core/request/request-plan.ts', 'PlanFlags'],
  ['core/request/request-plan.ts', 'plannerForFlags'],
];

test('core/ declares no flag types (but the ones waiting), and the waiting ones are still there', () => {
  const found: Array<[string, string]> = [];
  for (const f of importGraph(SRC).keys()) {
    if (area(f) !== 'core' || CATALOGUE.test(rel(f))) continue;
    const text = fs.readFileSync(f, 'utf8');
    for (const m of text.matchAll(/^\s*(?:export\s+)?(?:async\s+)?(?:interface|type|function|class|const)\s+(\w*Flags?(?:Values)?\w*)\b/gm)) found.push([rel(f), m[1]!]);
  }
  const key = ([f, n]: readonly [string, string]) => `${f}: ${n}`;
  assert.deepEqual(found.map(key).sort(), CORE_FLAG_TYPES_WAITING.map(key).sort(), 'a flag type in core/ (or a waiting one gone: remove it from CORE_FLAG_TYPES_WAITING)');
});

/**
 * Command wording in core/: a flag (`--max-tokens`) or a command (`medchat config set …`) in a string core/ writes.
 * These files still word their messages for the command line, waiting for the message catalogue (and the one question
 * pipeline) to let the front ends say it; a file leaves this list when its wording moves up, and no new file may join.
 */
const CORE_WORDING_WAITING = [
  'core/config/config-keys.ts', 'core/config/settings.ts',
  'core/request/request-plan.ts', 'core/request/schema/source.ts', 'core/request/schema/validate.ts',
  'core/retexture/download.ts', 'core/retexture/task-poll.ts',
  'core/sessions/store.ts',
];

/** The message catalogue (issue 23): where core's wording has moved, commands and flags inside the messages. */
const CATALOGUE = /^core\/i18n\/messages\//;

/** core/ files that run other programs and pass them those programs' own flags (never medchat's: only `medchat <command>` is looked for there). */
const CORE_RUNS_OTHER_PROGRAMS = new Set(['core/sessions/master-key.ts']);

test('no new command wording in core/ (flags, `medchat <command>`), and the files waiting still have theirs', () => {
  const worded: string[] = [];
  for (const f of importGraph(SRC).keys()) {
    // The message catalogue (core/i18n/) is where that wording moves: a message names the command to run, in both languages.
    if (area(f) !== 'core' || rel(f).startsWith('core/i18n/')) continue;
    const text = fs.readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '').replace(/\s\/\/ .*$/gm, '');
    const wording = CORE_RUNS_OTHER_PROGRAMS.has(rel(f))
      ? /['"`][^'"`\n]*?medchat (?:config|sessions|privacy|retexture|task|batch|roles|demo|completion)\b/
      : /['"`][^'"`\n]*?(--[a-z][a-z-]+|medchat (?:config|sessions|privacy|retexture|task|batch|roles|demo|completion)\b)/;
    if (wording.test(text)) worded.push(rel(f));
  }
  assert.deepEqual(worded.sort(), [...CORE_WORDING_WAITING].sort(), 'command wording in a new core/ file (or gone from a waiting one: remove it from CORE_WORDING_WAITING)');
});

test('the import graph sees every kind of import (a check on the checker)', () => {
  const graph = importGraph(SRC);
  const deps = (f: string) => (graph.get(path.join(SRC, f)) ?? []).map(rel);
  assert.ok(deps('cli/program.ts').includes('cli/chat-entry.ts'), 'import() inside a function');
  assert.ok(deps('cli/program.ts').includes('version.ts'), 'a static import');
  assert.ok(deps('core/net/http.ts').includes('core/net/proxy-env.ts'), 'export … from');
  assert.ok(deps('ui/components/Turn.tsx').includes('ui/controller/chat-controller.ts'), 'import type, from a .tsx file');
  assert.ok(graph.size > 100, `${graph.size} files walked`);
});
