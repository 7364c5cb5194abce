/** The CSP of the pages: this origin's stylesheet, forms posted here, no script, no frame, no plugin, no inline anything. */
export function pagePolicy(formTargets: readonly string[] = ["'self'"], { script = false } = {}): string {
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self'",
    ...(script ? ["script-src 'self'", "connect-src 'self'"] : []),
    `form-action ${formTargets.join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}
