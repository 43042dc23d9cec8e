/**
 * Headers on every HTTP answer of the system (the gateway's port and the health port): the answers are
 * JSON or problem+json for programs, never pages to be framed, sniffed or allowed to load anything.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'x-permitted-cross-domain-policies': 'none',
  // Ignored by browsers over plain HTTP; behind the TLS terminator of a deployment it keeps clients on HTTPS.
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
};

/**
 * The Swagger UI page loads its own scripts and styles from this origin only (no inline script: its
 * initializer is a file), sets inline styles and data: images, and fetches the OpenAPI document and
 * "try it out" calls from the same origin.
 */
export const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
