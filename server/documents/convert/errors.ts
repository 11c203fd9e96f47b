/** Input a converter cannot read at all (not JSON, not the tool's format): the CLI's exit 1. */
export class ConvertError extends Error {}
