import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ScimDocument } from './documents.js';
import { scimErrors } from './scim-errors.js';

/** Weak entity tag of a representation: any change of it, lastModified included, changes the tag. */
export function versionOf(document: ScimDocument): string {
  return `W/"${createHash('sha256').update(JSON.stringify(document)).digest('base64url').slice(0, 22)}"`;
}

/**
 * Whether an If-Match header names `version` (RFC 7644 §3.14): `*`, or a list of entity tags compared
 * weakly, as SCIM's versions are weak.
 */
function versionMatches(ifMatch: string, version: string): boolean {
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifMatch.trim() === '*' || ifMatch.split(',').some((tag) => opaque(tag) === opaque(version));
}

/** 412 unless `ifMatch` (a request's If-Match, when it has one) names the resource's current version. */
export function checkVersion(document: ScimDocument, ifMatch: string | undefined): void {
  const { version } = document.meta as { version: string };
  if (ifMatch !== undefined && !versionMatches(ifMatch, version)) throw scimErrors.versionChanged(version);
}

/** The request's If-Match, the versions a write must find (RFC 7644 §3.14). */
export function ifMatchOf(request: FastifyRequest): string | undefined {
  const value = request.headers['if-match'];
  return Array.isArray(value) ? value.join(',') : value;
}

/** Sends a resource with its version as its ETag, before `attributes=` may leave meta out. */
export function withVersion(reply: FastifyReply, document: ScimDocument): ScimDocument {
  reply.header('ETag', (document.meta as { version: string }).version);
  return document;
}
