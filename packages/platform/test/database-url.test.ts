/** The database URL as messages and logs show it: never its password, however the URL is written. */
import { describe, expect, it } from 'vitest';
import { withoutPassword } from '../src/db/engine-postgres';

describe('withoutPassword', () => {
  it('masks the password of the address, and nothing of a URL without one', () => {
    expect(withoutPassword('postgres://app:s3cret@db.example:5432/svc')).toBe('postgres://app:***@db.example:5432/svc');
    expect(withoutPassword('postgres://app@db.example:5432/svc')).toBe('postgres://app@db.example:5432/svc');
    expect(withoutPassword('postgres://db.example:5432/svc')).toBe('postgres://db.example:5432/svc');
    expect(withoutPassword('postgres://root@%2Fvar%2Frun%2Fpostgresql/test')).toBe(
      'postgres://root@%2Fvar%2Frun%2Fpostgresql/test',
    );
  });

  it('masks a password holding an unescaped @, / or ?', () => {
    for (const password of ['p@ss', 'a/b@c', 'we?ird', 'x:y@z/w']) {
      const shown = withoutPassword(`postgresql://app:${password}@db.example/svc?sslmode=require`);
      expect(shown).toBe('postgresql://app:***@db.example/svc?sslmode=require');
    }
  });

  it('masks a password parameter, wherever it is in the query', () => {
    expect(withoutPassword('postgres:///svc?host=/var/run/postgresql&password=s3cret&user=app')).toBe(
      'postgres:///svc?host=/var/run/postgresql&password=***&user=app',
    );
    expect(withoutPassword('postgres://db/svc?PASSWORD=s3cret')).toBe('postgres://db/svc?PASSWORD=***');
  });

  it('masks more rather than less where an @ in the query makes the address unclear', () => {
    const shown = withoutPassword('postgres://app:we?ird@db/svc?application_name=a@b');
    expect(shown).not.toContain('we?ird');
    expect(shown.startsWith('postgres://app:***@')).toBe(true);
  });
});
