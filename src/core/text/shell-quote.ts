/**
 * Quote a word for a POSIX shell, for commands medchat suggests ("come back with: medchat task
 * <id> --wait"). A plain word (letters, digits, `-_./`, not starting with `-`) is left as it is;
 * anything else is put in single quotes, with each `'` written as `'\''`, so pasting the
 * suggestion runs exactly that command and nothing else.
 */
const PLAIN = /^[A-Za-z0-9_./][A-Za-z0-9_./-]*$/;

export function shellQuote(word: string): string {
  if (PLAIN.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
