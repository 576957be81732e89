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
  shared.__mnoteKernel ??= openKernel(url);
  return shared.__mnoteKernel;
}
