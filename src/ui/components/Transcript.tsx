import { Static } from 'ink';
import { memo } from 'react';
import type { StaticItem } from '../controller/chat-controller.js';
import { TranscriptItem } from './Turn.js';

/**
 * The printed transcript. Ink's `<Static>` writes each item once, above the live region, and
 * never again: the terminal keeps it (and reflows it on a resize); the transcript viewer shows it
 * again with the reasoning.
 */
export const Transcript = memo(function Transcript({ items, width }: { items: readonly StaticItem[]; width: number }) {
  return (
    <Static items={items as StaticItem[]}>
      {(item) => <TranscriptItem key={item.id} item={item} width={width} />}
    </Static>
  );
});
