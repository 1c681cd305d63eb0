import { describe, expect, it } from 'vitest';
import { uuidV7 } from '../src/util/uuid-v7';

describe('uuidV7', () => {
  it('is a version 7 UUID that carries its time and sorts by it', () => {
    const ids = [1_000, 1_700_000_000_000, 1_700_000_000_001, 2 ** 47].map(uuidV7);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(parseInt(ids[1].replace(/-/g, '').slice(0, 12), 16)).toBe(1_700_000_000_000);
    expect(new Set(Array.from({ length: 1000 }, () => uuidV7(5))).size).toBe(1000);
  });
});
