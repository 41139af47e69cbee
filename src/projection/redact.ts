/**
 * Keeps keys out of logs and answers. The server takes a key from the configured header or from
 * the one query parameter whose name, percent-decoded, is `key`. Redaction covers more than that:
 * the value of every parameter whose decoded name contains `key` in any case (`KEY`, `api_key`,
 * `key[]`, `%6Bey`, `k%2565y`) or `token` (stream tokens), and anything shaped like a key (`ob_` and hex, percent-encoded or
 * not) wherever it appears, so a key put in the wrong place is hidden too; and a run of more than 32
 * hex digits, a key's 40 without their `ob_`: the API's own hex ids (lines, events) are 32 digits, and
 * what a shorter run could leave of a key is at least 8 digits short, too many to guess past the
 * failed-key throttle.
 */

export const REDACTED = '[redacted]';

/** `ob_` and at least 16 hex digits, each character possibly percent-encoded: a key or most of one. */
const KEY_SHAPED = /(?:o|%4f|%6f)(?:b|%42|%62)(?:_|%5f)(?:[0-9a-f]|%3[0-9]|%4[1-6]|%6[1-6]){16,}/gi;

/** More hex digits in a row than any id of the API has: a key without its prefix, or most of one. */
const LONG_HEX = /(?<![0-9a-f])[0-9a-f]{33,}(?![0-9a-f])/gi;

/** `name=value` after `?`, `&`, `;` or `#`, as in a query string. */
const PARAMETER = /([?&;#])([^=&;#?\s'"]+)=([^&;#\s'"]*)/g;

/** Percent-decodes byte by byte, three times over (for double encoding); never throws. */
function decodeName(raw: string): string {
  let s = raw.replace(/\+/g, ' ');
  for (let i = 0; i < 3 && s.includes('%'); i++) {
    s = s.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return s;
}

/**
 * Text that may quote a URL (a request URL, an error message, a stack) with the values of its
 * key-named parameters and every key-shaped run replaced by `[redacted]`.
 */
export function redact(text: string): string {
  return text
    .replace(PARAMETER, (whole, sep: string, name: string) =>
      /key|token/.test(decodeName(name).toLowerCase()) ? `${sep}${name}=${REDACTED}` : whole,
    )
    .replace(KEY_SHAPED, REDACTED)
    .replace(LONG_HEX, REDACTED);
}

/** Whether `text` holds anything `redact` would hide. */
export function holdsKey(text: string): boolean {
  return redact(text) !== text;
}
