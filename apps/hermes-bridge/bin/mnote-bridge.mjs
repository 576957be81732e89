#!/usr/bin/env node
// The bridge is TypeScript run in place (like the rest of the monorepo): tsx compiles on load.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
