// Installs re2js as the engine of `matches` (RE2 syntax, linear time: no catastrophic backtracking).
// Imported for its effect by index.ts, so the server has it from the start; the SDK and the console load it
// on demand (regex-loader.ts says why).
import { RE2JS } from 're2js'
import { setRegexEngine } from './regex'

setRegexEngine((pattern) => {
  const re = RE2JS.compile(pattern)
  return { test: (text) => re.test(text), size: re.programSize() }
})
