import { isUnavailableDependency } from './unavailable-dependency';

describe('isUnavailableDependency', () => {
  it.each([
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    new Error('Connection terminated unexpectedly'),
    Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
    Object.assign(new Error('connection failure'), { code: '08006' }),
    Object.assign(new Error("Can't reach database server at 127.0.0.1:5432"), { code: 'P1001' }),
    // Prisma (driver adapter) while PostgreSQL restarts: the SQLSTATE only in the message
    Object.assign(new Error('Database error. Code: `57P03`. Message: `the database system is not yet accepting connections`'), { code: 'P2010' }),
    new Error('wrapped', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) }),
  ])('is a dependency outage: %s', (err) => {
    expect(isUnavailableDependency(err)).toBe(true);
  });

  it.each([
    new Error('Cannot read properties of undefined'),
    Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }),
    Object.assign(new Error('invalid byte sequence'), { code: '22021' }),
    Object.assign(new Error('Database error. Code: `23505`. Message: `duplicate key value`'), { code: 'P2010' }),
    'a string',
    null,
  ])('is a real error: %s', (err) => {
    expect(isUnavailableDependency(err)).toBe(false);
  });
});
