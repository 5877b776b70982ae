import type { DOMElement } from 'ink';
import type { Caret } from './frame-writer.js';

/**
 * Where a box of Ink's output is, as the frame writer counts: rows above the line under the
 * output (where Ink leaves the cursor) and the column. Read from the layout Ink computed for this
 * commit, so call it from a layout effect. Undefined when the box is not laid out.
 */
export function caretAt(el: DOMElement | null, col: number): Caret | undefined {
  let top = 0;
  let left = 0;
  let node: DOMElement | undefined = el ?? undefined;
  let root: DOMElement | undefined;
  while (node) {
    if (node.nodeName === 'ink-root') root = node;
    else if (node.yogaNode) {
      top += node.yogaNode.getComputedTop();
      left += node.yogaNode.getComputedLeft();
    }
    node = node.parentNode;
  }
  const height = root?.yogaNode?.getComputedHeight();
  if (height === undefined || !Number.isFinite(height)) return undefined;
  return { up: Math.round(height - top), col: Math.round(left + col) };
}
