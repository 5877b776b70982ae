import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { importCircles, importGraph } from '../support/import-graph.js';

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

test('only main.ts imports the program (cli/program.ts): the version and shared options live below it', () => {
  const graph = importGraph(SRC);
  const importers = [...graph].filter(([, deps]) => deps.some((d) => rel(d) === 'cli/program.ts')).map(([f]) => rel(f));
  assert.deepEqual(importers, ['main.ts']);
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
