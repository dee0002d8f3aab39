import globals from 'globals'
import neostandard from 'neostandard'

export default [
  ...neostandard({
    ts: true,
    // schema.d.ts is generated (npm run client:generate).
    ignores: ['dist/**', 'data/**', 'node_modules/**', 'test-results/**', 'src/client/schema.d.ts']
  }),
  // The dashboard's files run in the browser.
  { files: ['src/ui/public/**/*.js'], languageOptions: { globals: globals.browser } }
]
