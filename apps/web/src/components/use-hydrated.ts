import { useSyncExternalStore } from "react";

const nothingToWatch = () => () => undefined;

/**
 * False in the server's HTML and the hydrating render, true once React runs the page in the browser. A button the
 * server draws does nothing until then, so a button that acts through React stays disabled until it can act (a click
 * on a slow device, or a test's, is never lost).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    nothingToWatch,
    () => true,
    () => false,
  );
}
