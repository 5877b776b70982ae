/**
 * Where a growing answer can be cut so the part before the cut is finished for good: just after
 * the last blank line that is outside a code fence (and has text before it). Returns 0 when there
 * is no such place. After gemini-cli's findLastSafeSplitPoint; our own code.
 */
export function lastSafeSplit(text: string): number {
  let fence: string | undefined;
  let best = 0;
  let sawContent = false;
  let pos = 0;
  for (;;) {
    const nl = text.indexOf('\n', pos);
    if (nl === -1) return best; // the last line is still being written
    const line = text.slice(pos, nl);
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (!fence) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && /^ {0,3}[`~]+\s*$/.test(line)) fence = undefined;
    }
    if (line.trim() === '') {
      if (!fence && sawContent) best = nl + 1;
    } else {
      sawContent = true;
    }
    pos = nl + 1;
  }
}
