/** The credentials file of a local platform (`.data/credentials.json`, mode 0600): the demo
 * portal's credentials and the inspector's key. Secrets live here rather than in the output,
 * which may go to a log file; only an interactive terminal is shown them. */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** What the file holds, or `{}` when there is none yet. */
export function readCredentialsFile(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!parsed || typeof parsed != 'object' || Array.isArray(parsed)) throw new Error(`${file} is not a JSON object`);
  return parsed as Record<string, unknown>;
}

/** Writes `values` over what the file holds (other keys stay), readable by its owner only. */
export function saveCredentials(file: string, values: object) {
  const merged = { ...readCredentialsFile(file), ...values };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(merged, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600); // an existing file keeps its mode on write
}

/** The shortest key `--inspector-key` takes: it reads every portal's data. */
const MIN_KEY_LENGTH = 16;

/**
 * The inspector's key: the one in the file (stable across restarts), or `set`, or a new one when
 * there is none or `rotate` asks for it; saved to the file when it changed.
 */
export function inspectorKeyIn(file: string, options: { set?: string; rotate?: boolean } = {}): string {
  const { key, save } = pickInspectorKey(file, options);
  save();
  return key;
}

/** inspectorKeyIn's key, and `save` to keep it in `file` (nothing to do if it is there already):
 * for a caller that must check the rest of its options before it writes anything. */
export function pickInspectorKey(file: string, options: { set?: string; rotate?: boolean } = {}) {
  const saved = readCredentialsFile(file).inspectorKey;
  if (options.set !== undefined && (options.set.length < MIN_KEY_LENGTH || /\s/.test(options.set)))
    throw new Error(`the inspector key must be at least ${MIN_KEY_LENGTH} characters without spaces`);
  const key =
    options.set ??
    (!options.rotate && typeof saved == 'string' && saved ? saved : randomBytes(18).toString('base64url'));
  return { key, save: () => void (key !== saved && saveCredentials(file, { inspectorKey: key })) };
}

/** How to print the inspector's address: with its key on a terminal, else where to find the key. */
export const inspectorUrl = (baseUrl: string, key: string, file: string, tty = Boolean(process.stdout.isTTY)) =>
  tty ? `${baseUrl}/_inspector/#key=${key}` : `${baseUrl}/_inspector/  (add #key=<inspectorKey from ${file}>)`;

/** The admin API's key: `set` (--admin-key), else the file's `adminKey`, else a new one when
 * `admin` (--admin) asks for the API; none (the API off) otherwise. `save` keeps a new key in the
 * file, so that the next start has the same one; `fresh` says it is new (shown once). */
export function pickAdminKey(file: string, options: { set?: string; admin?: boolean } = {}) {
  if (options.set !== undefined && (options.set.length < MIN_KEY_LENGTH || /\s/.test(options.set)))
    throw new Error(`the admin key (--admin-key) must be at least ${MIN_KEY_LENGTH} characters without spaces`);
  const saved = readCredentialsFile(file).adminKey;
  const inFile = typeof saved == 'string' && saved ? saved : undefined;
  const key = options.set ?? inFile ?? (options.admin ? randomBytes(24).toString('base64url') : undefined);
  const fresh = key !== undefined && options.set === undefined && inFile === undefined;
  return { key, fresh, save: () => void (fresh && saveCredentials(file, { adminKey: key })) };
}

/** How to print the admin API's address: with a new key on a terminal, else where the key is. */
export const adminLine = (baseUrl: string, key: { fresh: boolean; value: string }, file: string, tty: boolean) =>
  `admin API: ${baseUrl}/_admin/  ` +
  (tty && key.fresh ? `admin key (shown once): ${key.value}` : `(Authorization: Bearer <adminKey from ${file}>)`);
