// Installs re2js as the engine of `matches` (RE2 syntax, linear time: no catastrophic backtracking).
// Imported for its effect by index.ts and validate.ts, so the server, validation and the console have it
// from the start; the SDK imports it on demand (regex.ts says why).
import { RE2JS } from 're2js'
import { setRegexEngine } from './regex'

setRegexEngine((pattern) => RE2JS.compile(pattern))
