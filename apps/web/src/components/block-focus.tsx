"use client";

import { createContext, useContext } from "react";

/**
 * Where a change under review sits on the page: a block id when the block is on the page now, or a
 * position (an inserted block has no place yet: its neighbour at that position stands in).
 */
export type BlockTarget = { blockId: string } | { position: number };

/** The page view listens; the change list reports the change a person is looking at. */
export const BlockFocusContext = createContext<(target: BlockTarget | null) => void>(() => undefined);

export const useFocusBlock = () => useContext(BlockFocusContext);
