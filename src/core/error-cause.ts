/** Reading the cause chain of a network error (undici puts the useful code deep inside). */

/** Error codes that mean the server's certificate was not trusted or TLS failed. */
export const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS|ERR_SSL|EPROTO/;

/** The first `code` string along an error's cause chain. */
export function causeCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
