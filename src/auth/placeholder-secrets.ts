/**
 * Secrets that are placeholders, not secrets: the ones the deployment example and
 * the docs ship (deploy/sourcepool.env, docs/deployment.md, docs/operations.md,
 * the README), and any that says it is one. A service started with one of them
 * would be guarded by a secret anyone can read in this repository, so start-up
 * refuses it (config.ts) instead of running with it.
 */

/** The placeholder secrets written in the deployment example and the docs, exactly. */
export const EXAMPLE_SECRETS: readonly string[] = [
  'replace-with-a-long-random-secret', // deploy/sourcepool.env
  'replace-with-another-long-secret',
  '<32 random characters>', // docs/deployment.md
  '<32 more>',
  '9f2c…long-random…', // docs/operations.md
  '4b7e…long-random…',
  'c01d…long-random…'
]

/** The placeholder database passwords: deploy/sourcepool.env's `password`, the README's `pass`. */
export const EXAMPLE_DATABASE_PASSWORDS: readonly string[] = ['password', 'pass']

/**
 * Words that mark a placeholder wherever they appear, compared in lower case with
 * `-` and `_` taken out (so `change-me`, `CHANGE_ME` and `changeme` are one word).
 * Four x's, not three: three turn up in about one random base64 secret in a thousand.
 */
export const PLACEHOLDER_WORDS: readonly string[] = ['replace-with', 'replace-me', 'change-me', 'example', 'placeholder', 'xxxx']

/** What counts as a placeholder, in words for an error line (never the secret itself). */
export const PLACEHOLDER_HINT = `the deployment example's or the docs', or one containing ${PLACEHOLDER_WORDS.slice(0, -1).join(', ')} or ${PLACEHOLDER_WORDS.at(-1) ?? ''}`

const fold = (text: string) => text.toLowerCase().replace(/[-_]/g, '')
const FOLDED_WORDS = PLACEHOLDER_WORDS.map(fold)

/** Marks of a value elided in the docs: a whole `<…>`, or an ellipsis anywhere. */
const ELIDED = /^<.*>$|…/s

/** True when `secret` is a placeholder: one the example or docs ship, or one marked as such. */
export function isPlaceholderSecret (secret: string): boolean {
  if (EXAMPLE_SECRETS.includes(secret) || ELIDED.test(secret)) return true
  const folded = fold(secret)
  return FOLDED_WORDS.some((word) => folded.includes(word))
}

/** True when `password` (of a database URL, decoded) is a placeholder. */
export function isPlaceholderPassword (password: string): boolean {
  return EXAMPLE_DATABASE_PASSWORDS.includes(password) || isPlaceholderSecret(password)
}
