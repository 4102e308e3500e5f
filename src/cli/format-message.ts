import type { Message } from '../contracts/message.js';

/** One readable line (content indented below when it has several lines). */
export function formatMessage(message: Message): string {
  const time = message.timestamp.slice(11, 19);
  const kind =
    message.type === 'message'
      ? ''
      : ` [${message.type}${message.requestId ? ` ${message.requestId}` : ''}${message.approve === undefined ? '' : message.approve ? ' approved' : ' rejected'}]`;
  const [first = '', ...rest] = message.content.split('\n');
  const more = rest.map((line) => `\n    ${line}`).join('');
  return `${time} ${message.from} -> ${message.to}${kind}: ${first}${more}\n`;
}
