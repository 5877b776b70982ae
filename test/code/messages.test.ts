import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

/**
 * Every message medchat writes comes from the one catalogue (src/core/i18n/messages/), in English and
 * Simplified Chinese. Two checks:
 *  1. every catalogue has both languages, key for key, with the same parameters, and the Chinese is Chinese;
 *  2. no prose is written outside the catalogue: a string in src/ that reads as words ("no such key",
 *     `cannot read ${file}`) is a message written in place, unless it is sent to the model, is a
 *     format of the wire, or its line says why not with an `i18n-exempt:` comment.
 */
const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const rel = (f: string) => path.relative(SRC, f).split(path.sep).join('/');

/** Folders whose prose is checked. An area joins when its messages have moved into the catalogue. */
const CHECKED_AREAS: string[] = process.env.MESSAGES_AREAS
  ? process.env.MESSAGES_AREAS.split(',')
  : ['core', 'cli', 'ui', 'demo', 'main.ts'];
// (MESSAGES_AREAS=core/retexture,cli lists the findings of areas not yet in the list, while one is moved.)

/** Files whose words are not medchat's messages: text for the model, or the stand-in service's own. */
const NOT_MESSAGES = [
  /^core\/i18n\//, // the catalogue itself
  /^stand-in\//, // the stand-in service speaks as the service, not as medchat
  /^demo\/replies/, // the demo's answers stand for the model's
  /^core\/request\/roles\/builtins\.ts$/, // role prompts, sent to the model
  /^core\/context\/summarise\.ts$/, // the summary prompt, sent to the model
];

/** The .ts/.tsx files under `dir` (or `dir` itself when it is a file). */
function sourceFiles(dir: string): string[] {
  if (fs.statSync(dir).isFile()) return [dir];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Words in a row: what a person reads, not a key, a path, a flag or a format. */
const PROSE = /\b[A-Za-z][a-z]{1,30}[,;:]? {1,3}(?:[a-z]{2,}|[A-Za-z]{1,30}'[a-z])/;

function proseOutsideCatalogue(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const lines = text.split('\n');
  const found: string[] = [];
  const exempt = (node: ts.Node) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart()).line;
    return /i18n-exempt:/.test(lines[line] ?? '') || /i18n-exempt:/.test(lines[line - 1] ?? '');
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node) || ts.isLiteralTypeNode(node)) return;
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) return;
    let pieces: string[] = [];
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (ts.isPropertyAssignment(node.parent) && node.parent.name === node) return;
      pieces = [node.text];
    } else if (ts.isTemplateExpression(node)) {
      pieces = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)];
    } else if (ts.isJsxText(node)) {
      pieces = [node.text];
    }
    const prose = pieces.find((p) => PROSE.test(p));
    if (prose !== undefined && !exempt(node)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      found.push(`${rel(file)}:${line}: ${prose.trim().slice(0, 70)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('no message is written outside the catalogue (src/core/i18n/messages/) in the areas it covers', () => {
  const found = CHECKED_AREAS.flatMap((area) => sourceFiles(path.join(SRC, area)))
    .filter((f) => !NOT_MESSAGES.some((re) => re.test(rel(f))))
    .flatMap(proseOutsideCatalogue);
  assert.equal(found.length, 0, `${found.length} messages written in place: move each into the catalogue (or mark its line "i18n-exempt: why")\n${found.join('\n')}`);
});

test('every catalogue has a Chinese message for each English one, with the same parameters, in Chinese', async () => {
  const dir = path.join(SRC, 'core/i18n/messages');
  for (const f of fs.existsSync(dir) ? sourceFiles(dir) : []) await import(pathToFileURL(f).href);
  const { CATALOGUES } = await import('../../src/core/i18n/catalogue.js');
  const problems: string[] = [];
  for (const [name, { en, zh }] of CATALOGUES) {
    for (const key of Object.keys(en)) {
      const e = en[key];
      const z = zh[key];
      if (z === undefined) problems.push(`${name}.${key}: no Chinese`);
      else if (typeof e !== typeof z) problems.push(`${name}.${key}: ${typeof e} in English, ${typeof z} in Chinese`);
      else if (typeof e === 'function' && typeof z === 'function' && e.length !== z.length) problems.push(`${name}.${key}: ${e.length} parameters in English, ${z.length} in Chinese`);
      else {
        const sample: string = typeof z === 'function' ? (z as (...a: unknown[]) => string)(...Array.from({ length: z.length }, () => 'X')) : z;
        const english: string = typeof e === 'function' ? (e as (...a: unknown[]) => string)(...Array.from({ length: e.length }, () => 'X')) : String(e);
        // A message of words must read as Chinese; one with no words (a symbol, a command) may be the same.
        if (/\b[A-Za-z]{3,30} {1,3}[a-z]{3}/.test(english) && !/[\u3400-\u9fff]/.test(sample)) problems.push(`${name}.${key}: the Chinese has no Chinese: ${sample.slice(0, 60)}`);
      }
    }
    for (const key of Object.keys(zh)) if (!(key in en)) problems.push(`${name}.${key}: Chinese only`);
  }
  assert.equal(problems.length, 0, problems.join('\n'));
});
