/** `X-Svc-Fault`: a fault for one request, picked by the request itself (with the admin key in
 * `X-Svc-Admin-Key`: the header is the admin API's, never a portal's). Either JSON
 * (`{"status":429,"retryAfter":2}`) or `name=value` pairs split by `;` or `,`
 * (`status=503`, `latencyMs=200; status=500`, `drop`). */
import { PlatformError } from '../domain/errors';
import type { FaultEffect } from './faults';

export const FAULT_HEADER = 'x-svc-fault';
export const ADMIN_KEY_HEADER = 'x-svc-admin-key';

/** The longest wait a fault takes (a test that wants longer wants a timeout, not a wait). */
export const MAX_LATENCY_MS = 60_000;

const bad = (message: string) =>
  new PlatformError('invalid', `X-Svc-Fault: ${message}`, { category: 'VALIDATION_ERROR' });

function wholeIn(name: string, value: unknown, min: number, max: number) {
  const n = typeof value == 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n != 'number' || !Number.isInteger(n) || n < min || n > max)
    throw bad(`${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`);
  return n;
}

/** The one-request effect the header asks for; a 400 naming what is wrong. */
export function parseFaultHeader(raw: string): FaultEffect {
  let fields: Record<string, unknown>;
  if (raw.trim().startsWith('{')) {
    try {
      fields = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      throw bad('is not valid JSON');
    }
    if (!fields || typeof fields != 'object' || Array.isArray(fields)) throw bad('must be a JSON object');
  } else {
    fields = {};
    for (const part of raw.split(/[;,]/)) {
      const item = part.trim();
      if (!item) continue;
      const eq = item.indexOf('=');
      if (eq < 0) fields[item] = true;
      else fields[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
    }
  }
  const effect: FaultEffect = { id: 'header', latencyMs: 0 };
  for (const [name, value] of Object.entries(fields)) {
    if (name == 'status') effect.status = wholeIn('status', value, 400, 599);
    else if (name == 'retryAfter') effect.retryAfter = wholeIn('retryAfter', value, 0, 86_400);
    else if (name == 'latencyMs') effect.latencyMs = wholeIn('latencyMs', value, 0, MAX_LATENCY_MS);
    else if (name == 'drop') {
      if (value !== true && value !== 'true') throw bad('drop takes no value (or true)');
      effect.drop = true;
    } else throw bad(`unknown field "${name.slice(0, 40)}" (status, retryAfter, latencyMs, drop)`);
  }
  if (effect.status === undefined && !effect.drop && !effect.latencyMs)
    throw bad('names no effect: give status, latencyMs or drop');
  if (effect.status !== undefined && effect.drop) throw bad('status and drop are two answers: give one');
  return effect;
}
