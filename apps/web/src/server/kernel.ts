import "server-only";
import { resolve } from "node:path";
import { type KernelAdapter, openKernel } from "@mnote/kernel";

/**
 * One kernel per server process, shared by route handlers and server components
 * (kept on globalThis so Next's separate route bundles and dev reloads reuse it).
 */
const shared = globalThis as { __mnoteKernel?: Promise<KernelAdapter> };

export function getKernel(): Promise<KernelAdapter> {
  // `npm start` passes an absolute URL; the fallback is the repository's default database.
  const url = process.env.MNOTE_DATABASE_URL ?? `file:${resolve(process.cwd(), "../../.mnote/mnote.db")}`;
  // A failed open (the database down when the first request came) is forgotten, so the next
  // request tries again instead of every request failing until the panel restarts.
  shared.__mnoteKernel ??= openKernel(url).catch((error: unknown) => {
    shared.__mnoteKernel = undefined;
    throw error;
  });
  return shared.__mnoteKernel;
}
