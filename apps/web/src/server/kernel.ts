import "server-only";

/** The panel's kernel for route handlers and server components (open-kernel.ts; the mark keeps it off the browser). */
export { getKernel } from "./open-kernel";
