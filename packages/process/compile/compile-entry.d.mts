/** Compile a process entry into one ES module for Node 20 (compile-entry.mjs). */
export function compileEntry(entry: string, outfile: string): Promise<string>;
