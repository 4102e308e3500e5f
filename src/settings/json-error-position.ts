/**
 * Where a JSON text first goes wrong, as an offset: Node's own messages do not always say
 * (`Unexpected token ','`). A small recursive-descent pass over the grammar; null when the text
 * is valid JSON.
 */
export function jsonErrorOffset(text: string): number | null {
  let at = 0;
  const fail = (): never => {
    throw new JsonAt(at);
  };
  const space = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
  };
  const literal = (word: string): void => {
    for (const char of word) {
      if (text[at] !== char) fail();
      at++;
    }
  };
  const string = (): void => {
    at++;
    while (at < text.length && text[at] !== '"') {
      if (text.charCodeAt(at) < 0x20) fail();
      if (text[at] === '\\') at++;
      at++;
    }
    if (text[at] !== '"') fail();
    at++;
  };
  const number = (): void => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at));
    if (!match) fail();
    at += match![0].length;
  };
  const value = (): void => {
    space();
    const char = text[at];
    if (char === '{') return container('}', true);
    if (char === '[') return container(']', false);
    if (char === '"') return string();
    if (char === 't') return literal('true');
    if (char === 'f') return literal('false');
    if (char === 'n') return literal('null');
    number();
  };
  const container = (close: string, object: boolean): void => {
    at++;
    space();
    if (text[at] === close) {
      at++;
      return;
    }
    for (;;) {
      if (object) {
        space();
        if (text[at] !== '"') fail();
        string();
        space();
        if (text[at] !== ':') fail();
        at++;
      }
      value();
      space();
      if (text[at] === ',') {
        at++;
        continue;
      }
      if (text[at] === close) {
        at++;
        return;
      }
      fail();
    }
  };
  try {
    value();
    space();
    return at < text.length ? at : null;
  } catch (error) {
    if (error instanceof JsonAt) return error.offset;
    throw error;
  }
}

class JsonAt extends Error {
  constructor(readonly offset: number) {
    super(`JSON error at ${offset}`);
  }
}
