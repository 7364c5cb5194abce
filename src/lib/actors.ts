/**
 * Who makes a change, as the change stream records it with each event (the audit trail): a token of the
 * API, an OAuth client through a token it was issued, a token through SCIM, a person (in the console or
 * on their own pages), an import, the command line, the server's operator (its pages), or the server itself.
 */
export const ACTOR_TYPES = ['token', 'oauthClient', 'scim', 'person', 'import', 'commandLine', 'operator', 'server'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export interface Actor {
  type: ActorType;
  /** The token's, client's, person's or import job's id; null for the command line and the server. */
  id: string | null;
  /** What a reader knows it by, as it was then: the token's or client's name, the person's email. Never a secret. */
  name: string | null;
}

/** The server's own work: what no request asked for (an organization's first rows, the feed's machinery). */
export const SERVER_ACTOR: Actor = Object.freeze({ type: 'server', id: null, name: null });

/** The server's operator, on its pages (OPERATOR_TOKEN): one credential of the server, so no id nor name. */
export const OPERATOR_ACTOR: Actor = Object.freeze({ type: 'operator', id: null, name: null });

/** Someone at the server's command line. */
export const COMMAND_LINE_ACTOR: Actor = Object.freeze({ type: 'commandLine', id: null, name: null });

/**
 * An import of a file, by the job that runs it (none at the command line), named by who started it:
 * its changes are the import's, whoever asked for it.
 */
export function importActor(startedBy: Actor, jobId: string | null): Actor {
  return { type: 'import', id: jobId, name: startedBy.name };
}

/** A person acting in a browser, known by their email. */
export function personActor(person: { id: string; email: string }): Actor {
  return { type: 'person', id: person.id, name: person.email };
}
