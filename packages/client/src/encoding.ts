/** Request bodies by the route's encoding, and answers by their content type. */
import type { BodyType } from '@svc/api';

export interface Encoded {
  body?: string | Uint8Array;
  contentType?: string;
}

/** Encodes once per call, so retries resend the same bytes. */
export async function encodeBody(type: BodyType, body: unknown): Promise<Encoded> {
  if (type == 'none' || body === undefined) return {};
  if (type == 'urlencoded') {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(body as Record<string, unknown>))
      for (const item of Array.isArray(v) ? v : [v])
        if (item !== undefined && item !== null) form.append(k, String(item));
    return { body: form.toString(), contentType: 'application/x-www-form-urlencoded' };
  }
  if (type == 'multipart') return multipart(body);
  if (type == 'atom') return { body: String(body), contentType: 'application/atom+xml' };
  return { body: JSON.stringify(body), contentType: 'application/json' };
}

/** Multipart from a FormData, or from an object whose Blob/File values are files and the rest
 * fields. Serialised through the global Response, which writes the boundary, so a FormData
 * of Node's own fetch works with the undici package too. */
async function multipart(body: unknown): Promise<Encoded> {
  let form: FormData;
  if (body instanceof FormData) form = body;
  else {
    form = new FormData();
    for (const [k, v] of Object.entries(body as Record<string, unknown>))
      if (v instanceof Blob) form.append(k, v, (v as File).name ?? k);
      else if (v !== undefined && v !== null) form.append(k, String(v));
  }
  const encoded = new Response(form);
  return { body: new Uint8Array(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')! };
}

export type Decoded =
  { kind: 'json'; value: unknown } | { kind: 'text'; value: string } | { kind: 'bytes'; value: Uint8Array };

/** JSON when the content type says so (or text that parses: old endpoints answered JSON as
 * text/plain), text for other text types, bytes for the rest (the events pixel). Throws on a
 * JSON content type with a broken body. */
export function decodeBody(contentType: string, bytes: Buffer): Decoded {
  if (/[/+]json\b/.test(contentType)) return { kind: 'json', value: JSON.parse(bytes.toString('utf8')) };
  if (/^text\/|xml/.test(contentType) || !contentType) {
    const text = bytes.toString('utf8');
    if (/^text\/plain/.test(contentType) && /^\s*[[{]/.test(text))
      try {
        return { kind: 'json', value: JSON.parse(text) };
      } catch {
        // not JSON after all
      }
    return { kind: 'text', value: text };
  }
  return { kind: 'bytes', value: new Uint8Array(bytes) };
}
