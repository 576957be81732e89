import { z } from "zod";

/**
 * The page-option registry. `runtimeSupport` says whether the editor honours the
 * option today: only `wired` options may be written; a `planned` one is accepted by
 * a dry run with a warning and refused by a real call (contract §4, update_options).
 */
export const PAGE_OPTION_REGISTRY = {
  wideLayout: { runtimeSupport: "wired", default: false, label: "Wide layout" },
  smallText: { runtimeSupport: "wired", default: false, label: "Small text" },
  showToc: { runtimeSupport: "wired", default: false, label: "Table of contents" },
  protectEditing: { runtimeSupport: "planned", default: false, label: "Protect editing" },
} as const satisfies Record<string, { runtimeSupport: "wired" | "planned"; default: boolean; label: string }>;

export type PageOptionKey = keyof typeof PAGE_OPTION_REGISTRY;
export const PAGE_OPTION_KEYS = Object.keys(PAGE_OPTION_REGISTRY) as PageOptionKey[];

export const PageOptionsSchema = z.strictObject({
  wideLayout: z.boolean(),
  smallText: z.boolean(),
  showToc: z.boolean(),
  protectEditing: z.boolean(),
});
export type PageOptions = z.infer<typeof PageOptionsSchema>;

/** A patch: any subset of the registry's keys, no others. */
export const PageOptionsPatchSchema = PageOptionsSchema.partial();
export type PageOptionsPatch = z.infer<typeof PageOptionsPatchSchema>;

export const DEFAULT_PAGE_OPTIONS: PageOptions = Object.fromEntries(
  PAGE_OPTION_KEYS.map((k) => [k, PAGE_OPTION_REGISTRY[k].default]),
) as PageOptions;

export function isWiredOption(key: PageOptionKey): boolean {
  return PAGE_OPTION_REGISTRY[key].runtimeSupport === "wired";
}
