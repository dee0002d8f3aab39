/**
 * Splitting a header field value into its list members or parameters (RFC 9110
 * §5.6.1, RFC 8941 lists): separators inside double-quoted strings do not count.
 * One rule for the cache's Cache-Control and the providers' RateLimit fields.
 */

/** `text` split at `separator`s that are outside double-quoted strings, each piece trimmed. */
export function splitOutsideQuotes (text: string, separator: string): string[] {
  const parts: string[] = []
  let start = 0
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted && c === '\\') i++
    else if (c === '"') quoted = !quoted
    else if (!quoted && c === separator) {
      parts.push(text.slice(start, i).trim())
      start = i + 1
    }
  }
  parts.push(text.slice(start).trim())
  return parts
}
