/** The JSON body's depth check (http/bodies.ts): a body is refused when a value sits more than the
 * limit's levels down, counted as the level-by-level walk it replaced counted them. */
import { describe, expect, it } from 'vitest';
import { depthOver } from '../src/http/bodies';

/** `leaf` inside `levels` containers, objects and arrays alternating. */
function nest(levels: number, leaf: unknown = 1) {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

describe('depthOver', () => {
  it('counts a value at each level below the top', () => {
    expect(depthOver(1, 0)).toBe(false);
    expect(depthOver({ a: 1 }, 0)).toBe(true);
    expect(depthOver(nest(64), 64)).toBe(false);
    expect(depthOver(nest(65), 64)).toBe(true);
    expect(depthOver(JSON.parse(JSON.stringify(nest(64))), 64)).toBe(false);
  });

  it('lets an empty object or array sit at the last level', () => {
    expect(depthOver(nest(64, {}), 64)).toBe(false);
    expect(depthOver(nest(64, []), 64)).toBe(false);
    expect(depthOver(nest(64, { b: null }), 64)).toBe(true);
    expect(depthOver(nest(64, [0]), 64)).toBe(true);
  });

  it('finds the deep value anywhere among wide siblings', () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({
      email: `c${i}@depth.test`,
      properties: [{ property: 'company', value: 'x' }],
    }));
    // A property's value: in the array, an item, its properties, one of them.
    expect(depthOver(items, 4)).toBe(false);
    expect(depthOver(items, 3)).toBe(true);
    items[999].properties.push(nest(10) as never);
    expect(depthOver(items, 12)).toBe(true);
    expect(depthOver(items, 13)).toBe(false);
  });

  it('stops past the limit whatever the depth (no stack overflow)', () => {
    expect(depthOver(nest(200_000), 64)).toBe(true);
  });
});
