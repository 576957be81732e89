// The CLI process: what `bin/mnote.mjs` runs, compiled (`pnpm build` → dist/mnote.mjs).
import { main } from "./main";

process.exitCode = await main(process.argv.slice(2));
