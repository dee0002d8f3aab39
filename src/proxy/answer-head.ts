/**
 * An answer's head built once and served many times: what a stored answer's HIT
 * sends besides the request's own headers (item 5 of issue 35). The head of an
 * entry is the provider's headers as the service serves them (servedHeaders: none of
 * the service's own), with its exact Content-Length and the provider's name as
 * `x-sourcepool-provider` says it, as a flat `[name, value, …]` list that Node's
 * `writeHead` takes as it is; reply.ts puts the request's id, the cache result, the
 * attempts and the Age around it. The cache builds it once per entry it holds
 * (cache-answer.ts), so a HIT of the memory store allocates no header object.
 */
import { REQUEST_ID_HEADER } from '../http/request-id.js'
import { servedHeaders } from './forward.js'

/** A header value Node will send: printable ASCII as it is, anything else percent-encoded. */
export const headerSafe = (text: string): string => /^[\x20-\x7e]*$/.test(text) ? text : encodeURIComponent(text)

/** The provider's headers a stored answer is served with, as an object and as the flat list `writeHead` takes. */
export interface AnswerHead {
  /** The headers (Content-Length included): what a request with CORS, or any other answer path, reads. */
  readonly headers: Readonly<Record<string, string | string[]>>
  /** The same headers less `age`, `x-request-id` and `connection` (reply.ts writes the answer's own), then `x-sourcepool-provider`, flat. */
  readonly flat: ReadonlyArray<string | string[]>
}

/** The head of a stored answer of `status` with `body`, from the provider `provider`. */
export function answerHead (stored: Readonly<Record<string, string | string[]>>, status: number, body: Buffer, provider: string | null): AnswerHead {
  const headers = servedHeaders(stored)
  // A 204 or 304 has no body, and says no length (RFC 9110 §8.6); any other says its own exactly.
  if (status !== 204 && status !== 304) headers['content-length'] = String(body.length)
  const flat: Array<string | string[]> = []
  // Age, the request id and Connection are the answer's own (reply.ts): a stored one (an entry written by another program) is not sent beside them.
  for (const name in headers) if (name !== 'age' && name !== REQUEST_ID_HEADER && name !== 'connection') flat.push(name, headers[name] as string | string[])
  flat.push('x-sourcepool-provider', headerSafe(provider ?? ''))
  // Shared by every answer of the entry: frozen, so nothing adds a request's own header to it.
  return { headers: Object.freeze(headers), flat }
}
