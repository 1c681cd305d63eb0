/** Runs before each test file (vitest.config.ts `setupFiles`), whether or not the file has a worker
 * of its own: what shared helpers made for the file is removed after its tests (./file-cleanup.ts). */
import { afterAll } from 'vitest';
import { runFileCleanups } from './file-cleanup';

afterAll(runFileCleanups);
