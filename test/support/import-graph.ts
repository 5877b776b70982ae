import fs from 'node:fs';
import path from 'node:path';

/**
 * The import graph of a source tree: each .ts/.tsx file and the files it imports (static imports,
 * `export … from`, and `import()`), by relative specifier. Type-only imports are edges too unless
 * `types: false`: a circle through types still ties the modules together.
 */
export function importGraph(root: string, opts: { types?: boolean } = {}): Map<string, string[]> {
  const files = walk(root).filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = stripComments(fs.readFileSync(file, 'utf8'));
    const deps = new Set<string>();
    const found = [
      ...text.matchAll(/^\s*(import|export)\s+(type\s+)?[^'";]*?\bfrom\s+['"]([^'"]+)['"]/gms),
      ...text.matchAll(/^\s*import\s+()()['"]([^'"]+)['"]/gm),
    ];
    for (const m of found) {
      if (m[2] && opts.types === false) continue;
      const target = resolve(file, m[3]!);
      if (target) deps.add(target);
    }
    for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) {
      const target = resolve(file, m[1]!);
      if (target) deps.add(target);
    }
    graph.set(file, [...deps]);
  }
  return graph;
}

/**
 * The packages each .ts/.tsx file imports (bare specifiers such as `ink`, `node:fs`, `react/jsx-runtime`), by
 * static import, `export … from` and `import()`, type-only ones included.
 */
export function packageImports(root: string): Map<string, string[]> {
  const files = walk(root).filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'));
  const found = new Map<string, string[]>();
  for (const file of files) {
    const text = stripComments(fs.readFileSync(file, 'utf8'));
    const specs = [
      ...[...text.matchAll(/^\s*(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s+['"]([^'"]+)['"]/gms)].map((m) => m[1]!),
      ...[...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]!),
      ...[...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!),
    ];
    found.set(file, [...new Set(specs.filter((s) => !s.startsWith('.')))]);
  }
  return found;
}

/**
 * The files tied together by import circles: each group (a strongly connected component of two or
 * more files, or one importing itself) with one circle through it, first file repeated at the end.
 */
export function importCircles(graph: Map<string, string[]>): Array<{ files: string[]; circle: string[] }> {
  // Tarjan's strongly connected components; a component of two or more files holds a circle.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: Array<{ files: string[]; circle: string[] }> = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      const selfLoop = (graph.get(v) ?? []).includes(v);
      if (comp.length > 1 || selfLoop) circles.push({ files: comp.sort(), circle: oneCircle(graph, new Set(comp), v) });
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return circles;
}

/** One concrete circle through `start` inside its component (breadth-first back to start). */
function oneCircle(graph: Map<string, string[]>, comp: Set<string>, start: string): string[] {
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!comp.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(prev.get(path[0]!)!);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** A relative specifier (`./x.js`) -> the source file it names; undefined for packages. */
function resolve(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')];
  return candidates.find((c) => /\.tsx?$/.test(c) && fs.existsSync(c));
}
