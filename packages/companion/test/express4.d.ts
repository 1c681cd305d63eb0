/** express@4 installed under the alias `express4` (a dev dependency) to test mounting in an Express 4 app. */
declare module 'express4' {
  import type { Express } from 'express';
  const express4: () => Express;
  export default express4;
}
