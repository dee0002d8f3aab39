/** Whether dist/ holds a build of the current sources (see dist-current.mjs); `entry` defaults to dist/main.js. */
export function builtAndCurrent (entry?: string): boolean
