/** Control characters but newline and tab: C0, DEL and C1. */
// eslint-disable-next-line no-control-regex -- matching control characters is what this is for
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text made safe to show on a terminal: control characters other than newline and tab are
 * written out as `\u00NN`. What the CLI prints comes in part from teammates (messages, results,
 * plans, log lines), whose models are not trusted (docs/trust-model.md): an escape sequence in
 * there must not clear the screen, retitle the window or hide a line. The same form is JSON's:
 * JSON output stays valid and means the same (JSON.stringify leaves DEL and C1 as they are, and
 * a control character can only be inside a string). `teamd watch` draws its screen through the stream.
 */
export function forTerminal(text: string): string {
  return text.replace(CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
