import { describe, expect, it } from 'vitest';
import { HttpHeaders } from '../../../src/platform/http/http-headers.js';

describe('HttpHeaders', () => {
  it('matches names without case, joins repeats with a comma and lists names sorted and lower-cased', () => {
    const headers = new HttpHeaders({ 'X-B': '2', 'x-a': ' 1 ' });
    headers.append('X-b', '3');
    expect(headers.get('x-b')).toBe('2, 3');
    expect(headers.get('X-A')).toBe('1');
    expect(headers.has('X-B')).toBe(true);
    expect([...headers]).toEqual([
      ['x-a', '1'],
      ['x-b', '2, 3'],
    ]);
    headers.set('x-b', '4');
    headers.delete('X-A');
    expect([...headers.keys()]).toEqual(['x-b']);
    expect([...headers.values()]).toEqual(['4']);
    expect(headers.get('missing')).toBeNull();
  });

  it('copies another Headers (its own or Node fetch’s) and pairs; keeps each set-cookie apart', () => {
    const copy = new HttpHeaders(new HttpHeaders([['a', '1']]));
    expect(copy.get('a')).toBe('1');
    const fromUndici = new HttpHeaders(new Headers({ b: '2' }));
    expect(fromUndici.get('b')).toBe('2');
    const cookies = new HttpHeaders([
      ['set-cookie', 'a=1'],
      ['set-cookie', 'b=2'],
    ]);
    expect(cookies.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(Object.prototype.toString.call(cookies)).toBe('[object Headers]');
  });

  it('refuses what HTTP forbids, as fetch does: a bad name, a line break in a value, a pair that is not two', () => {
    expect(() => new HttpHeaders({ 'bad name': 'x' })).toThrow(TypeError);
    expect(() => new HttpHeaders({ ok: 'a\r\nInjected: yes' })).toThrow(/CR, LF or NUL/);
    expect(() => new HttpHeaders([['only-one']] as unknown as [string, string][])).toThrow(/pair/);
  });
});
