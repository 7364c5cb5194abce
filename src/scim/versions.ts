import { hash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { ifMatchNamesWeakly } from '../http/conditional-requests.js';
import type { ScimDocument } from './documents.js';
import { scimErrors } from './scim-errors.js';

/** Weak entity tag of a representation: any change of it, lastModified included, changes the tag. */
export function versionOf(document: ScimDocument): string {
  return `W/"${hash('sha256', JSON.stringify(document), 'base64url').slice(0, 22)}"`;
}

/** 412 unless `ifMatch` (a request's If-Match, when it has one) names the resource's current version. */
export function checkVersion(document: ScimDocument, ifMatch: string | undefined): void {
  const { version } = document.meta as { version: string };
  if (ifMatch !== undefined && !ifMatchNamesWeakly(ifMatch, version)) throw scimErrors.versionChanged(version);
}

/** Sends a resource with its version as its ETag, before `attributes=` may leave meta out. */
export function withVersion(reply: FastifyReply, document: ScimDocument): ScimDocument {
  reply.header('ETag', (document.meta as { version: string }).version);
  return document;
}
