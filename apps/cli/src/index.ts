export { main, COMMANDS } from "./main";
export { DEMO, ensureDemo, type DemoCredentials } from "./demo";
