/** The visitor's address: the first `X-Forwarded-For` entry when the request comes from a
 * trusted proxy (by default loopback: the companion on the same machine), else the peer. Anyone
 * else could name any address, and with it any organisation, in that header. */
import type { IncomingMessage } from 'node:http';

/** Proxies believed by default: this machine's own (the companion next to the platform). */
export const LOOPBACK = ['127.0.0.1', '::1', '::ffff:127.0.0.1'];

export function clientIp(trustedProxies: readonly string[] = LOOPBACK) {
  const trusted = new Set(trustedProxies);
  return (req: IncomingMessage) => {
    const peer = req.socket.remoteAddress ?? '';
    const forwarded = trusted.has(peer)
      ? String(req.headers['x-forwarded-for'] ?? '')
          .split(',')[0]
          .trim()
      : '';
    return forwarded || peer;
  };
}
