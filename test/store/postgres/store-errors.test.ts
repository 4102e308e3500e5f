import { describe, expect, it } from 'vitest';
import { TeamdError } from '../../../src/errors.js';
import { storeError } from '../../../src/store/postgres/transaction.js';

const codeOf = (error: unknown) => (error instanceof TeamdError ? error.code : null);

describe("the driver's failures, in teamd's words (issue 48)", () => {
  it('a connection gone (ended by the server, not queryable, no answer on a cut link) is the store unreachable, waited out; a missing password is a usage error that says where to put one', () => {
    expect(codeOf(storeError(new Error('Client has encountered a connection error and is not queryable')))).toBe('STORE_UNAVAILABLE');
    expect(codeOf(storeError(new Error('Query read timeout')))).toBe('STORE_UNAVAILABLE');
    expect(codeOf(storeError(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })))).toBe('STORE_UNAVAILABLE');
    const password = storeError(new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'));
    expect(codeOf(password)).toBe('USAGE');
    expect((password as Error).message).toMatch(/asks for a password and none was given: .*TEAMD_STORE.*PGPASSWORD.*~\/\.pgpass/);
    // A query the database refused stays a refusal, with its SQLSTATE.
    expect((storeError(Object.assign(new Error('lock not available'), { code: '55P03' })) as Error).message).toContain('(SQLSTATE 55P03)');
  });
});
