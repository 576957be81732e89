/**
 * Where a process's own failures are written: the router's unexpected errors and lost audit lines, the sweeps'
 * results. The bridge hands its pino logger (a pino `Logger` is one), so these reach its JSON lines beside the
 * call lines; a process without one writes to the console (`consoleLogger`). Fields are ids and error objects,
 * never args, page content or tokens.
 */
export interface Logger {
  error(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

/** The console as a `Logger`: stderr for errors and warnings, prefixed as mnote's lines always were. */
export const consoleLogger: Logger = {
  error: (fields, message) => console.error(`[mnote] ${message}`, fields),
  warn: (fields, message) => console.warn(`[mnote] ${message}`, fields),
  info: (fields, message) => console.info(`[mnote] ${message}`, fields),
};
