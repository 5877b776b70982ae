/**
 * The JSON in an answer. Models asked for "JSON only" still wrap it in a code fence or add a
 * sentence before or after it; every plausible JSON value in the answer is a candidate, in this
 * order: the whole answer; the contents of each fenced code block (those marked json first);
 * then each balanced {…} or […] in the text, outermost first. The caller validates them in order
 * and takes the first that fits the schema.
 */
interface Candidate {
  value: unknown;
  /** The text it was parsed from. */
  text: string;
}

/** At most this many starting brackets are tried in the free-text scan (answers are bounded anyway). */
const MAX_SCAN_STARTS = 64;

export function jsonCandidates(answer: string): Candidate[] {
  const out: Candidate[] = [];
  const seen = new Set<string>();
  const add = (text: string): boolean => {
    const t = text.trim();
    if (!t || seen.has(t)) return false;
    seen.add(t);
    const value = parseJson(t);
    if (value === undefined) return false;
    out.push({ value, text: t });
    return true;
  };
  add(answer);
  const fences = fencedBlocks(answer);
  for (const f of fences.filter((f) => /^json5?\b/i.test(f.info))) add(f.body);
  for (const f of fences.filter((f) => !/^json5?\b/i.test(f.info))) add(f.body);
  scanBalanced(answer, add);
  return out;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

interface Fence {
  info: string;
  body: string;
}

/** Fenced code blocks (``` or ~~~, three or more), including one left open at the end. */
export function fencedBlocks(text: string): Fence[] {
  const lines = text.split(/\r?\n/);
  const blocks: Fence[] = [];
  let open: { marker: string; info: string; body: string[] } | undefined;
  for (const line of lines) {
    if (!open) {
      const m = /^\s{0,3}(`{3,}|~{3,})\s*([^`]*)$/.exec(line);
      if (m) open = { marker: m[1]!, info: m[2]!.trim(), body: [] };
      continue;
    }
    const close = /^\s{0,3}(`{3,}|~{3,})\s*$/.exec(line);
    if (close && close[1]![0] === open.marker[0] && close[1]!.length >= open.marker.length) {
      blocks.push({ info: open.info, body: open.body.join('\n') });
      open = undefined;
    } else {
      open.body.push(line);
    }
  }
  if (open) blocks.push({ info: open.info, body: open.body.join('\n') });
  return blocks;
}

/** Each balanced {…} / […] span (brackets inside strings ignored); spans inside a parsed one are skipped. */
function scanBalanced(text: string, add: (span: string) => boolean): void {
  let starts = 0;
  let coveredUntil = -1;
  for (let i = 0; i < text.length && starts < MAX_SCAN_STARTS; i++) {
    const ch = text[i];
    if ((ch !== '{' && ch !== '[') || i < coveredUntil) continue;
    starts++;
    const end = balancedEnd(text, i);
    if (end < 0) continue;
    if (add(text.slice(i, end + 1)) || parseJson(text.slice(i, end + 1)) !== undefined) coveredUntil = end + 1;
  }
}

/** Index of the bracket closing the one at `start`, or -1. */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') stack.push('}');
    else if (ch === '[') stack.push(']');
    else if (ch === '}' || ch === ']') {
      if (stack.pop() !== ch) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}
