/** Atom bodies of the older blog API (§4.9): a write arrives as an Atom `<entry>` and is turned
 * into the plain object the catalog validates (answers in Atom: handlers/atom-document.ts).
 * fast-xml-parser does the XML; documents with a DOCTYPE are refused (no entity tricks). */
import type { AtomEntry } from '@svc/api';
import type { NextFunction, Request, Response } from 'express';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { PlatformError } from '../domain/errors';

const parser = new XMLParser({
  ignoreAttributes: false,
  // `hs:metaDescription`, `hs:draft`: the vendor namespace's prefix varies between clients.
  removeNSPrefix: true,
  // Keep every value a string: titles like "2026" or "true" are text.
  parseTagValue: false,
  isArray: (name) => name == 'category',
});

type Node = Record<string, unknown>;
const bad = (message: string) => new PlatformError('invalid', message, { category: 'VALIDATION_ERROR' });

/** The text of an element (with or without attributes), or undefined. */
const text = (v: unknown): string | undefined =>
  typeof v == 'string'
    ? v
    : v && typeof v == 'object' && typeof (v as Node)['#text'] == 'string'
      ? ((v as Node)['#text'] as string)
      : v === ''
        ? ''
        : undefined;

/** An Atom entry as the fields of a post write: title, author, summary, content, categories as
 * tags, and the vendor fields metaDescription, metaKeywords, draft, sendNotifications, published. */
function postFields(entry: Node) {
  const author = (entry.author ?? {}) as Node;
  const categories = (entry.category ?? []) as Node[];
  const fields = {
    title: text(entry.title),
    authorDisplayName: text(author.name),
    authorEmail: text(author.email),
    summary: text(entry.summary),
    body: text(entry.content),
    tags: categories.length ? categories.map((c) => String(c['@_term'] ?? '').trim()).filter(Boolean) : undefined,
    metaDescription: text(entry.metaDescription),
    metaKeywords: text(entry.metaKeywords),
    published: text(entry.published),
    draft: text(entry.draft),
    sendNotifications: text(entry.sendNotifications),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/** An Atom entry as a comment: the author is the commenter, the content the comment. */
function commentFields(entry: Node) {
  const author = (entry.author ?? {}) as Node;
  const fields = {
    anonyName: text(author.name),
    anonyEmail: text(author.email),
    anonyUrl: text(author.uri),
    comment: text(entry.content),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/** Element names that are also properties of every object: the parser's result would reach
 * through them into the prototype. An entry has no such elements. */
const PROTOTYPE_NAMES = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);
/** An Atom entry is a few levels deep; far deeper is an attack on the parser. */
const MAX_DEPTH = 32;

/** What is wrong with the document's element names or depth, before the parser sees it. */
function shapeProblem(xml: string): string | undefined {
  let depth = 0;
  // Character data and comments hold text, not elements (an HTML body in CDATA has unclosed <br>s).
  const markup = xml.replace(/<!\[CDATA\[[\s\S]*?\]\]>|<!--[\s\S]*?-->/g, '');
  for (const [, closing, name, selfClosing] of markup.matchAll(/<(\/?)([^\s/>!?]+)[^>]*?(\/?)>/g)) {
    const local = name.slice(name.indexOf(':') + 1);
    if (PROTOTYPE_NAMES.has(local)) return `body: <${name}> is not an element of an Atom entry`;
    if (closing) depth--;
    else if (!selfClosing && ++depth > MAX_DEPTH) return `body: elements are nested more than ${MAX_DEPTH} levels deep`;
  }
  return undefined;
}

/** Middleware after express.text(): the Atom text becomes `req.body` as a post's or a comment's fields. */
export function atomBody(kind: AtomEntry) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const xml = typeof req.body == 'string' ? req.body : '';
    if (!xml.trim()) return next(bad('body: send an Atom <entry> (Content-Type: application/atom+xml)'));
    if (/<!DOCTYPE|<!ENTITY/i.test(xml)) return next(bad('body: DOCTYPE declarations are not accepted'));
    const shape = shapeProblem(xml);
    if (shape) return next(bad(shape));
    const valid = XMLValidator.validate(xml);
    if (valid !== true) return next(bad(`body: not well-formed XML (${valid.err.msg}, line ${valid.err.line})`));
    let entry: unknown;
    try {
      entry = (parser.parse(xml) as Node).entry;
    } catch (err) {
      // The parser refuses what it finds unsafe; whatever it is, the document is the caller's.
      return next(bad(`body: not a usable Atom entry (${(err as Error).message})`));
    }
    if (!entry || typeof entry != 'object') return next(bad('body: the document is not an Atom <entry>'));
    req.body = kind == 'post' ? postFields(entry as Node) : commentFields(entry as Node);
    next();
  };
}
