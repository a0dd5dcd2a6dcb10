/**
 * Splits a command line into words as a POSIX shell would, without expanding anything: blanks separate words,
 * single quotes keep everything, double quotes keep everything but `\"` and `\\`, a backslash outside quotes
 * escapes one character. Throws on an unterminated quote.
 */
export function splitCommand(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    const next = text[i + 1];
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"' && (next === '"' || next === '\\')) word += text[++i];
      else word += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inWord = true;
    } else if (char === '\\' && next !== undefined) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} quote`);
  if (inWord) words.push(word);
  return words;
}
