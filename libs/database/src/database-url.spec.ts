import { databaseNameOf, quoteIdentifier, redactUrl, withDatabase } from './database-url';

describe('database URLs', () => {
  it('reads the database name', () => {
    expect(databaseNameOf('postgresql://postgres@127.0.0.1:5432/svc_keys')).toBe('svc_keys');
    expect(databaseNameOf('postgresql://u:p@h/svc_keys?sslmode=disable')).toBe('svc_keys');
  });

  it('refuses a URL without a database', () => {
    expect(() => databaseNameOf('postgresql://postgres@127.0.0.1:5432')).toThrow(/names no database/);
  });

  it('swaps the database and keeps credentials and options', () => {
    expect(withDatabase('postgresql://u:p@h:5433/svc_keys?sslmode=require', 'postgres')).toBe('postgresql://u:p@h:5433/postgres?sslmode=require');
  });

  it('masks passwords', () => {
    expect(redactUrl('postgresql://u:secret@h/db')).toBe('postgresql://u:***@h/db');
    expect(redactUrl('postgresql://u:secret@h/db')).not.toContain('secret');
  });

  it('quotes identifiers safely', () => {
    expect(quoteIdentifier('a"b')).toBe('"a""b"');
  });
});
