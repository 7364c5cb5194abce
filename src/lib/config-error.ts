/** A setting that cannot be used as given: the command line prints its message, without a stack. */
export class ConfigError extends Error {}
