#!/usr/bin/env node
// Placeholder until the panel and its Playwright flows land (issue 4): says so instead of pretending.
console.log("e2e: no end-to-end flows yet (the page-AI panel is not built); nothing to run");
