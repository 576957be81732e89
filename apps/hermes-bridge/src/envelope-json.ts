import { randomUUID } from "node:crypto";
import type { OutputEnvelope } from "@mnote/contract";
import { blocksJson } from "@mnote/tools";

/**
 * The output envelope's JSON, written once for every door (decision 0029): as plain JSON (the HTTP endpoint's
 * standard form), as Hermes-safe JSON (`safe`: the text every MCP result and the Hermes form carry), and as the
 * ASCII bytes the MCP answer writer sends, raw or as the contents of a JSON string.
 *
 * A `page.get` window's blocks (most of the bytes) were each serialized by the router to measure them against the
 * read budget (`blocksJson`); those strings are joined here instead of serializing the blocks again, and what is
 * made of one window (its plain, safe and ASCII forms) is kept with it, so the next answer with the same window (the
 * read cache hands the same window to every read of one page state) costs only its small frame.
 */
export class EnvelopeJson {
  private constructor(
    /** The envelope's JSON up to the window's blocks, or all of it when it holds none. */
    private readonly head: string,
    private readonly window: WindowJson | null,
    private readonly tail: string,
    /** The Hermes rule applies (a success): see hermesSafe. */
    private readonly success: boolean,
  ) {}

  static of(output: OutputEnvelope): EnvelopeJson {
    if (!output.ok) return new EnvelopeJson(JSON.stringify(errorFirst(output)), null, "", false);
    const json = blocksJson((output.result as { blocks?: unknown } | null)?.blocks);
    if (json) {
      const text = JSON.stringify({ ...output, result: { ...(output.result as object), blocks: SPLICE } });
      const at = text.indexOf(SPLICE_JSON);
      // The marker is this process's own random word; were it anywhere else in the envelope, write it plainly.
      if (at >= 0 && text.lastIndexOf(SPLICE_JSON) === at)
        return new EnvelopeJson(text.slice(0, at), windowJson(json), text.slice(at + SPLICE_JSON.length), output.ok);
    }
    return new EnvelopeJson(JSON.stringify(output), null, "", output.ok);
  }

  private cachedPlain?: string;
  private cachedSafe?: string;

  /** `JSON.stringify(output)`; for a failure with its error right after ok (`errorFirst`), the same value. */
  get plain(): string {
    return (this.cachedPlain ??= this.window ? this.head + this.window.plain + this.tail : this.head);
  }

  /** The same JSON value as Hermes-safe text (see hermesSafe). */
  get safe(): string {
    if (this.cachedSafe !== undefined) return this.cachedSafe;
    if (!this.success) return (this.cachedSafe = this.plain);
    return (this.cachedSafe = this.window ? this.safeHead() + this.window.safe + this.safeTail() : this.safeHead());
  }

  /** `safe` as ASCII bytes (every character beyond ASCII as its `\u` escape), in pieces to be written in order. */
  asciiBytes(): Buffer[] {
    if (!this.window) return [asciiBytes(this.safe)];
    return [asciiBytes(this.safeHead()), this.window.safeAscii(), asciiBytes(this.safeTail())];
  }

  /** The same, as the contents of a JSON string (quotes and backslashes escaped, without the enclosing quotes). */
  asciiInStringBytes(): Buffer[] {
    if (!this.window) return [asciiBytes(inString(this.safe))];
    return [
      asciiBytes(inString(this.safeHead())),
      this.window.safeAsciiInString(),
      asciiBytes(inString(this.safeTail())),
    ];
  }

  private cachedSafeHead?: string;
  private cachedSafeTail?: string;
  private safeHead() {
    return (this.cachedSafeHead ??= this.success ? hermesSafe(this.head) : this.head);
  }
  private safeTail() {
    return (this.cachedSafeTail ??= this.success ? hermesSafe(this.tail) : this.tail);
  }
}

/**
 * A failure with its `error` right after `ok`: the same JSON value, keys in another order. Hermes's fallback failure
 * rule reads only the first 500 characters of a result for `"error"` (agent/tool_guardrails.py
 * `classify_tool_failure`, used where a caller passes no verdict; `agent/display.py _detect_tool_failure` also parses
 * the JSON). In the contract's order the error comes after the ids and the audit, past character 500 when the ids
 * are long (the contract allows 256-character call and trace ids), and such a refusal would read as a success.
 */
export function errorFirst(output: OutputEnvelope): OutputEnvelope {
  const { ok, error, ...rest } = output;
  return { ok, error, ...rest };
}

/**
 * A word JSON.stringify writes as it is, standing in for the window's blocks while the rest of the envelope is
 * serialized. Random per process: no page text can be made to match it (and a match would only mean the plain path).
 */
const SPLICE = `mnote-splice-${randomUUID()}`;
const SPLICE_JSON = `"${SPLICE}"`;

/** What is made of one window's block JSON, each at most once: kept while the window is (the read cache holds it). */
class WindowJson {
  constructor(private readonly json: readonly string[]) {}
  private cachedPlain?: string;
  private cachedSafe?: string;
  private cachedAscii?: Buffer;
  private cachedAsciiInString?: Buffer;

  get plain() {
    return (this.cachedPlain ??= `[${this.json.join(",")}]`);
  }
  /** A window is only ever in a success's envelope. */
  get safe() {
    return (this.cachedSafe ??= hermesSafe(this.plain));
  }
  safeAscii() {
    return (this.cachedAscii ??= asciiBytes(this.safe));
  }
  safeAsciiInString() {
    return (this.cachedAsciiInString ??= asciiBytes(inString(this.safe)));
  }
}

const windows = new WeakMap<readonly string[], WindowJson>();
function windowJson(json: readonly string[]): WindowJson {
  let window = windows.get(json);
  if (!window) {
    window = new WindowJson(json);
    windows.set(json, window);
  }
  return window;
}

/**
 * `"error"` or `"failed"` (any case) in JSON text. In valid JSON the last quote of such a match is
 * always a string token's closing quote (a quote inside a string is escaped, and no token can start
 * right after a word of another), so each match is a token that ends in the word right after a quote:
 * the token is exactly that word, or it ends in an escaped quote and the word (`"say \"error"`).
 * Those are the only places the text spells either quoted word. One pass over the text, no tokenizing.
 * A piece of the envelope's JSON cut between tokens (the head, the window, the tail) holds whole tokens,
 * so each piece is made safe on its own.
 */
const QUOTED_WORD = /"(?:error|failed)"/gi;

function escapeFirstLetter(match: string): string {
  return `"\\u${match.charCodeAt(1).toString(16).padStart(4, "0")}${match.slice(2)}`;
}

/**
 * JSON text that Hermes Agent classifies by what it means. Hermes judges a tool result a failure when its first 500
 * characters contain `"error"` or `"failed"` (agent/display.py `_detect_tool_failure`, agent/tool_guardrails.py), so
 * the contract's `"error": null` made every success read as a failure. Here the first letter of each string token
 * that would spell `"error"` or `"failed"` is written as a `\u00XX` escape: `JSON.parse` gives back exactly the same
 * value, and neither quoted word appears in the text. Only for a success: a failure is serialized plainly, and
 * must stay a failure under both of Hermes's rules (the dict rule, `data.get("error")` is the error object, and
 * the substring rule).
 */
function hermesSafe(json: string): string {
  return json.replace(QUOTED_WORD, escapeFirstLetter);
}

/** JSON text as the contents of a JSON string: JSON.stringify's own escaping, without the enclosing quotes. */
function inString(json: string): string {
  return JSON.stringify(json).slice(1, -1);
}

const ANY_NON_ASCII = /[\u0080-\uffff]/;
const NON_ASCII = /[\u0080-\uffff]/g;
const escapeUnit = (unit: string) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * JSON text as bytes, every character beyond ASCII written as its `\uXXXX` escape (as Python's `json.dumps` writes
 * by default): the same JSON value, in ASCII. A reader then decodes and parses a one-byte string; the same answer
 * with its characters as UTF-8 took a Node client 8× as long to decode and parse (2.0 ms against 0.25 ms for a 67 KB
 * `page.get` answer holding two ellipses; docs/benchmarks.md, section 2). Costs 4–6 bytes more per such character on
 * the wire. Only string contents can hold such a character, and an escape there reads back as the same character.
 */
export function asciiBytes(json: string): Buffer {
  return Buffer.from(ANY_NON_ASCII.test(json) ? json.replace(NON_ASCII, escapeUnit) : json, "latin1");
}
