// The service's version: package.json's, which the SDK package served at /sdk/ and the binary carry too.
import pkg from '../package.json'

export const VERSION: string = pkg.version
