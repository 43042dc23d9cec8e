import { ValidateBy, type ValidationOptions } from 'class-validator';

/** What a browser ignores or splits on inside a URL (tabs and newlines are dropped: `java\tscript:` runs), and `<`, `>`. */
const UNSAFE_CHARACTERS = /[\s\u0000-\u001f\u007f<>]/u;
/** A scheme, as RFC 3986 §3.1 spells it: what comes before the first `:` when no `/`, `?` or `#` comes first. */
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const WEB_SCHEMES = ['http', 'https'];

/**
 * Why `value` is no link a learner's client may follow or load, or undefined when it is one: an absolute http(s)
 * URL of any host (`http://localhost:8080/a.png`, `https://intranet/a.png`: no top-level domain needed), or a
 * reference relative to where the client reads it (`/api/files/abc.png`, `a.png`, `//cdn.example.com/a.png`).
 * Any other scheme (`javascript:`, `data:`, `vbscript:`, `file:`) is refused, and so is whatever could hide one.
 */
export function linkProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (UNSAFE_CHARACTERS.test(value)) return 'must not contain spaces, control characters, < or >';
  const scheme = SCHEME.exec(value)?.[1].toLowerCase();
  if (scheme !== undefined && !WEB_SCHEMES.includes(scheme)) return `must be an http(s) URL or a relative reference, not a ${scheme}: URL`;
  try {
    // Relative references are read against a base of ours, as a client reads them against its page.
    const url = scheme === undefined ? new URL(value, 'https://relative.invalid/') : new URL(value);
    return WEB_SCHEMES.includes(url.protocol.slice(0, -1)) && url.hostname !== '' ? undefined : 'must be an http(s) URL or a relative reference';
  } catch {
    return 'is not a URL';
  }
}

/** class-validator: a string that `linkProblem` takes. */
export const IsLink = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isLink',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && linkProblem(value) === undefined,
        defaultMessage: (args) => `$property ${typeof args?.value === 'string' ? linkProblem(args.value) : 'must be a string'}`,
      },
    },
    options,
  );
