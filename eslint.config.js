import neostandard from 'neostandard'

export default neostandard({
  ts: true,
  // schema.d.ts is generated (npm run client:generate).
  ignores: ['dist/**', 'data/**', 'node_modules/**', 'src/client/schema.d.ts']
})
