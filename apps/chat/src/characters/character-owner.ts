import { createHash } from 'node:crypto';

/**
 * Who writes a character: an account (its id, through the API) or the operator (the characters
 * CLI and seeding). Characters are owned by their writer; the operator's are the shipped ones
 * and those the CLI creates.
 */
export const OPERATOR = null;
export type CharacterOwner = string | typeof OPERATOR;

/** The public author of the operator's characters. */
export const SVC_AUTHOR = 'svc';

/** A short, stable, anonymised author id derived from the owning account. */
export const authorOf = (owner: CharacterOwner): string =>
  owner === OPERATOR
    ? SVC_AUTHOR
    : BigInt(`0x${createHash('sha256').update(owner).digest('hex').slice(0, 12)}`)
        .toString(36)
        .slice(0, 5);
