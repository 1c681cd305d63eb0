#!/usr/bin/env node
// `npx svc-companion`: the built CLI (run `npm run build` first in a checkout).
import('../dist/cli.js')
  .then((cli) => cli.main(process.argv.slice(2)))
  .catch((err) => {
    console.error(`svc-companion: ${err.message}`);
    process.exit(1);
  });
