/** Form submissions (`POST {forms_url}/uploads/form/v2/:portal_id/:form_guid`, the catalog's
 * `forms.submit`) as a plain Node request handler in front of the forms server's Express app, as
 * the collector is in front of the API's (http/collector.ts): Express and cors cost about a third
 * of a submission's CPU. It answers as the Express route would, byte for byte (the header lines
 * in their order included; test/form-submissions-http.test.ts pins them): the same urlencoded
 * parser (http/bodies.ts), the same catalog call (http/catalog-call.ts), and the
 * `Access-Control-Allow-Origin: *` cors() puts on every answer but a preflight's. Any other
 * request — another method (the CORS preflight, a 405), another path, a URL Express would parse
 * the slow way — it leaves to Express, which still mounts the route; that is decided from the
 * method and the URL alone, before anything of the request is read. */
import { catalog, type RouteDef } from '@svc/api';
import type { Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { match } from 'path-to-regexp';
import { Reply } from '../handlers/handler';
import { urlencodedBody } from './bodies';
import { callRoute, type CatalogDeps, decodeParams, errorAnswer, handlerOf } from './catalog-call';

const ROUTE: RouteDef = catalog['forms.submit'];
/** As Express 5's router matches a route: any case, a trailing slash allowed. */
const matchPath = match(ROUTE.path, { decode: false, sensitive: false, end: true, trailing: true });
/** What sends Express's URL parser (parseurl) off its fast path, which splits at the first `?`. */
const SLOW_URL = /[\t\n\f\r #\u00a0\ufeff]/;

/** An answer with a JSON body, headers as Express's `res.set(headers).json(body)` writes them. */
function sendJson(res: ServerResponse, status: number, headers: Record<string, string>, body: unknown) {
  const payload = JSON.stringify(body);
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(payload));
  res.end(payload);
}

/** `req.body` as the urlencoded parser leaves it (undefined for another content type). */
const readBody = (req: IncomingMessage, res: ServerResponse) =>
  new Promise<unknown>((resolve, reject) =>
    urlencodedBody(req, res, (err?: Error) => (err ? reject(err) : resolve((req as { body?: unknown }).body))),
  );

/** Handles the request if it is a form submission; false, having touched nothing, otherwise. */
export function formSubmissions(deps: CatalogDeps) {
  const handler = handlerOf(deps.handlers, ROUTE);

  async function submit(
    req: IncomingMessage,
    res: ServerResponse,
    raw: Record<string, string>,
    query: Record<string, unknown>,
  ) {
    try {
      const params = decodeParams(raw);
      const body = await readBody(req, res);
      // Express's request and response types: forms.submit's handler reads neither.
      const out = await callRoute(deps, ROUTE, handler, {
        query,
        params,
        body,
        req: req as Request,
        res: res as Response,
        files: [],
      });
      // forms.submit answers a Reply without a body (204, or 302 and its Location), all this writes.
      if (!(out instanceof Reply) || out.body !== undefined)
        throw new Error(`${ROUTE.id} answered what only its Express route writes`);
      res.statusCode = out.status;
      for (const [name, value] of Object.entries(out.headers)) res.setHeader(name, value);
      res.end();
    } catch (err) {
      if (res.headersSent) return;
      const { status, headers, body } = errorAnswer(err, deps.log);
      sendJson(res, status, headers, body);
    }
  }

  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '';
    if (req.method != ROUTE.method || url.charCodeAt(0) != 0x2f || SLOW_URL.test(url)) return false;
    const q = url.indexOf('?');
    const found = matchPath(q < 0 ? url : url.slice(0, q));
    if (!found) return false;
    res.setHeader('Access-Control-Allow-Origin', '*');
    // Express 5's default ('simple') query parser.
    void submit(req, res, found.params as Record<string, string>, parseQuery(q < 0 ? '' : url.slice(q + 1)));
    return true;
  };
}
