export { appRouter, createCaller, type AppRouter } from "./root";
export { callTool } from "./call-tool";
export { bearerSecret, createToolsContext, doorRefusal, type Door, DEFAULT_SETTINGS, type ToolsContext, type ToolsSettings } from "./context";
export { payloadFingerprint, canonicalJson } from "./fingerprint";
export { canReadPage, canWritePage, canWriteArtifacts } from "./access";
