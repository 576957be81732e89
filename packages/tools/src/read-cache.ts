import type { Block } from "@mnote/contract";
import type { SqlKernel, LocatedBlock, PageRecord } from "@mnote/kernel";

/**
 * A `page.get` blocks window as read and measured once: its rows (one past the window when the page goes on), the
 * blocks the window sends, and each block's JSON as the read budget measured it.
 */
export interface BlocksWindow {
  readonly rows: readonly LocatedBlock[];
  readonly blocks: readonly Block[];
  /** `JSON.stringify` of each of `blocks`, in order. */
  readonly json: readonly string[];
}

/**
 * A `page.get` window in the Markdown form: the Markdown of the first `count` blocks of the blocks window of the same
 * key, as many as the read budget takes (decision 0049).
 */
export interface MarkdownWindow {
  readonly text: string;
  readonly count: number;
}

/** What the read cache keeps: a blocks window, a Markdown window, or a body summary. */
export type Kept = BlocksWindow | MarkdownWindow | string;

/** The JSON of each block of a window's `blocks` array this process read, so a door writes it without serializing it again. */
const windowJson = new WeakMap<readonly Block[], readonly string[]>();

/**
 * `JSON.stringify` of each block of `blocks` when it is the blocks array of a `page.get` answer (the same array,
 * not a copy), else undefined. The answer's writers (decision 0029) splice these into the envelope's JSON: each
 * block is serialized once per window read, not once to measure it and again to send it.
 */
export function blocksJson(blocks: unknown): readonly string[] | undefined {
  return typeof blocks === "object" && blocks !== null ? windowJson.get(blocks as readonly Block[]) : undefined;
}

export function windowOf(rows: LocatedBlock[], blocks: Block[], json: string[]): BlocksWindow {
  windowJson.set(blocks, json);
  return { rows, blocks, json };
}

/** The default size of a process's read cache (MNOTE_READ_CACHE_MB): the memory its entries take, estimated. */
export const DEFAULT_READ_CACHE_BYTES = 16 * 1024 * 1024;

/**
 * Memory an entry takes per character of its JSON: the rows and block objects, the JSON itself, and the answer forms
 * a door makes of a window and keeps with it (decision 0029). Measured: 200 windows of 300-block pages, 5.9 MB of
 * JSON, took 31.6 MB of heap and 12.4 MB of buffers after a forced GC, 7.5 bytes per character.
 */
const MEMORY_PER_JSON_CHARACTER = 8;

interface Entry {
  value: Kept;
  bytes: number;
}

/**
 * What `page.get` read of one state of a page, kept for the next read of the same state (decision 0029): blocks
 * windows and body summaries, least recently used out first, taking at most about `maxBytes` of memory in all.
 *
 * A state is the page's id, its creation time and its revision, as the call's checks just read them from the
 * database. Every change of a page's body or head bumps its revision in the write's own transaction (the kernel's
 * `execute`), and a revision only grows within one page's life, so a key names exactly one body: a read on
 * another instance, after another process's write, asks for a key this cache has never held. Nothing is ever
 * invalidated. Entries are frozen: one answer's blocks are every later answer's.
 */
export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(readonly maxBytes: number) {}

  static key(page: PageRecord, part: string): string {
    return `${page.id}\u0000${page.createdAt}\u0000${page.revision}\u0000${part}`;
  }

  get<T extends Kept>(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Most recently used last: Map keeps insertion order, so the first entry is the one to drop.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value as T;
  }

  set(key: string, value: Kept) {
    const characters =
      typeof value === "string"
        ? value.length
        : "json" in value
          ? value.json.reduce((sum, json) => sum + json.length, 0)
          : value.text.length;
    const bytes = characters * MEMORY_PER_JSON_CHARACTER;
    if (bytes > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.bytes;
      this.entries.delete(key);
    }
    if (typeof value !== "string") deepFreeze(value);
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  get size() {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}

function deepFreeze(value: unknown) {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const member of Object.values(value)) deepFreeze(member);
}

/** One cache per kernel (one database): a kernel that is closed and let go takes its cache with it. */
const caches = new WeakMap<SqlKernel, ReadCache>();

/** The kernel's read cache, or null when the process's settings turn it off (0 bytes). */
export function readCacheOf(kernel: SqlKernel, maxBytes: number): ReadCache | null {
  if (maxBytes <= 0) return null;
  let cache = caches.get(kernel);
  if (!cache) {
    cache = new ReadCache(maxBytes);
    caches.set(kernel, cache);
  }
  return cache;
}
