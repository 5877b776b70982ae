import { Static } from 'ink';
import { memo } from 'react';
import type { StaticItem } from './chat-controller.js';
import { TranscriptItem } from './Turn.js';

/**
 * The printed transcript. Ink's `<Static>` writes each item once, above the live region; the
 * parent gives it a new `key` (the epoch) to reprint everything after the screen was cleared.
 */
export const Transcript = memo(function Transcript({ items, showReasoning, width }: { items: readonly StaticItem[]; showReasoning: boolean; width: number }) {
  return (
    <Static items={items as StaticItem[]}>
      {(item) => <TranscriptItem key={item.id} item={item} showReasoning={showReasoning} width={width} />}
    </Static>
  );
});
