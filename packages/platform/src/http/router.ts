/** Turns the catalog into Express routes: each runs http/catalog-call.ts (authentication, rate
 * limit, validation of params, query and body against the catalog's schemas, the handler) after
 * its body parser, and answers in JSON — errors too: 400 naming the field, 404 for unknown routes,
 * 405 with `Allow` for a wrong method, 413 for an oversized body. */
import { routes as catalogRoutes, type RouteDef } from '@svc/api';
import { Router, type Express, type NextFunction, type Request, type Response } from 'express';
import { match } from 'path-to-regexp';
import { Reply } from '../handlers/handler';
import { atomBody } from './atom';
import { bodyParsers } from './bodies';
import { callRoute, type CatalogDeps, decodeParams, errorAnswer, handlerOf, notPercentEncoding } from './catalog-call';
import { errorBody, notAllowed } from './errors';
import { uploadedFiles } from './multipart';

/** Literal segments sort before parameters, so `/lists/static` wins over `/lists/:list_id`. */
const specificity = (path: string) =>
  path
    .split('/')
    .map((s) => (s.startsWith(':') ? '2' : s.includes(':') ? '1' : '0'))
    .join('');

/** A path's first segment as Express compares it (case-insensitive routing, its default). */
const firstSegment = (path: string) => {
  const end = path.indexOf('/', 1);
  return (end < 0 ? path.slice(1) : path.slice(1, end)).toLowerCase();
};

/** A route's first segment when it is literal, which only a request with that first segment can
 * match; undefined when it holds a parameter, a wildcard or an optional part (path-to-regexp 8). */
const literalFirstSegment = (path: string) => {
  const segment = firstSegment(path);
  return /[:*{}()]/.test(segment) ? undefined : segment;
};

function sendError(res: Response, err: unknown, log: CatalogDeps['log']) {
  if (res.headersSent) return;
  const { status, headers, body } = errorAnswer(err, log);
  res.status(status).set(headers).json(body);
}

/** Registers the routes of one host on `app` (but those served elsewhere, by id), then the 404/405 fallbacks. */
export function mountCatalog(
  app: Express,
  host: RouteDef['host'],
  deps: CatalogDeps,
  servedElsewhere: readonly string[] = [],
) {
  const mine = catalogRoutes
    .filter((r) => r.host == host && !servedElsewhere.includes(r.id))
    .sort((a, b) => specificity(a.path).localeCompare(specificity(b.path)));

  // The routes by their first path segment (`contacts`, `content`, …), and those whose first is not literal.
  const groups = new Map<string, Router>();
  const rest = Router();
  for (const route of mine) {
    const handler = handlerOf(deps.handlers, route);
    const run = async (req: Request, res: Response) => {
      try {
        const out = await callRoute(deps, route, handler, {
          query: req.query,
          params: req.params,
          body: req.body,
          req,
          res,
          files: uploadedFiles(res),
        });
        if (out instanceof Reply) {
          res.status(out.status).set(out.headers);
          if (out.body === undefined) res.end();
          else if (Buffer.isBuffer(out.body) || typeof out.body == 'string') res.send(out.body);
          else res.json(out.body);
        } else if (out === undefined) res.status(route.status).end();
        else res.status(route.status).json(out);
      } catch (err) {
        sendError(res, err, deps.log);
      }
    };
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    // An Atom body is parsed into the fields the catalog validates: a comment's or a post's.
    const atom = route.atomEntry ? [atomBody(route.atomEntry)] : [];
    const urlencodedToo = route.urlencodedToo ? bodyParsers.urlencoded : [];
    // Uploads can be large and Atom is parsed as XML: a caller is authenticated before either is read.
    const authFirst =
      route.bodyType == 'multipart' || route.bodyType == 'atom'
        ? [
            (req: Request, _res: Response, next: NextFunction) => {
              deps.authenticate(req, route).then(() => next(), next);
            },
          ]
        : [];
    const segment = literalFirstSegment(route.path);
    const group = segment === undefined ? rest : (groups.get(segment) ?? groups.set(segment, Router()).get(segment)!);
    group[method](route.path, ...authFirst, ...bodyParsers[route.bodyType], ...urlencodedToo, ...atom, run);
  }
  // A request tries only the routes of its first segment, then those that start with a parameter,
  // in the order above: Express would test every route in turn, a noticeable part of a lookup's CPU.
  app.use((req: Request, res: Response, next: NextFunction) => {
    // No catalog route takes OPTIONS: on to the 405 below (a router would answer it 200 itself).
    if (req.method == 'OPTIONS') return next();
    const group = groups.get(firstSegment(req.path));
    if (!group) return rest(req, res, next);
    group(req, res, (err?: unknown) => (err ? next(err) : rest(req, res, next)));
  });

  const matchers = mine.map((r) => ({
    method: r.method,
    test: match(r.path, { decode: decodeURIComponent }),
    raw: match(r.path, { decode: false }),
  }));
  /** Express could not percent-decode a path parameter: the 400 names it (`path.form_guid`). */
  const undecodable = (err: unknown, req: Request) => {
    if (!(err instanceof URIError)) return err;
    const params = matchers.map((m) => m.method == req.method && m.raw(req.path)).find(Boolean);
    try {
      if (params) decodeParams(params.params as Record<string, string>);
    } catch (named) {
      return named; // the 400 naming the parameter
    }
    return notPercentEncoding();
  };
  app.use((req: Request, res: Response) => {
    const allowed = [...new Set(matchers.filter((m) => m.test(req.path)).map((m) => m.method))];
    if (allowed.length) {
      const { status, headers, body } = notAllowed(req.method, allowed);
      res.status(status).set(headers).json(body);
    } else res.status(404).json(errorBody(`no route for ${req.method} ${req.path}`));
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) =>
    sendError(res, undecodable(err, req), deps.log),
  );
}
