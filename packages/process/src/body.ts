import { LIMITS, TOOL_ERROR_MESSAGES } from "@mnote/contract";

export class BodyTooLarge extends Error {
  constructor() {
    super(TOOL_ERROR_MESSAGES.payloadTooLarge);
  }
}

/** A fetch `Request`'s body as the panel's routes get it: only its reader is used. */
interface WebBody {
  getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> };
}

/** The chunks of either kind of body; leaving early cancels a web stream, leaves a Node request paused. */
async function* chunksOf(body: AsyncIterable<Uint8Array> | WebBody): AsyncGenerator<Uint8Array> {
  if (!("getReader" in body)) {
    yield* body;
    return;
  }
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value) yield value;
    }
    finished = true;
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
  }
}

/**
 * The one request-body cap of every door (the bridge's HTTP and MCP endpoints, the panel's API and OAuth
 * endpoints): a declared Content-Length over `limit` is refused before a byte is read, a body that grows past it
 * is abandoned at that chunk (`BodyTooLarge` either way). `body` is the body as it arrives: a Node request
 * (`req.iterator({ destroyOnReturn: false })`, so the socket stays to carry the 413) or a fetch `Request`'s stream
 * (cancelled when abandoned). Default `LIMITS.requestBodyBytes`, the contract's one number.
 */
export async function readCappedBody(
  body: AsyncIterable<Uint8Array> | WebBody | null,
  declaredLength: string | string[] | null | undefined,
  limit: number = LIMITS.requestBodyBytes,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(Array.isArray(declaredLength) ? declaredLength[0] : declaredLength);
  if (declaredLength != null && Number.isFinite(declared) && declared > limit) throw new BodyTooLarge();
  const received: Uint8Array[] = [];
  let size = 0;
  if (body) {
    for await (const chunk of chunksOf(body)) {
      size += chunk.byteLength;
      if (size > limit) throw new BodyTooLarge();
      received.push(chunk);
    }
  }
  const whole = new Uint8Array(new ArrayBuffer(size));
  let at = 0;
  for (const chunk of received) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}
