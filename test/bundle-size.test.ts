/** The browser bundles within their gzip budgets, measured as `npm run bench:size` measures them
 * (bench/size.mjs, where the budgets are: `gzip -9` of the built file, or of an ESM build minified
 * as an app ships it), without the peers. */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('bundle sizes', () => {
  it('keeps every built browser bundle within its gzip -9 budget', () => {
    let output: string;
    try {
      output = execFileSync(process.execPath, ['bench/size.mjs', '--ours'], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (err) {
      const { stderr, stdout } = err as { stderr: string; stdout: string };
      throw new Error(`bench/size.mjs --ours failed:\n${stderr}\n${stdout}`, { cause: err });
    }
    // The tracker's row is there, measured and within budget; so are the React bindings' own code.
    expect(output).toMatch(/\| dist\/tracker\.js .*\| [\d,]+ \/ [\d,]+ ok \|/);
    expect(output).toMatch(/\| dist\/react\.mjs .*\| [\d,]+ \/ [\d,]+ ok +\|/);
  });
});
