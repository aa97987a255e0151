import { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorStyle } from '@svc/errors';

declare module 'fastify' {
  interface FastifyInstance {
    /** ERROR_STYLE of this app (registerErrorStyle); absent on an instance that never set it. */
    errorStyle?: ErrorStyle;
  }
}

/**
 * ERROR_STYLE, kept on the app's Fastify instance: every path that answers an error (the filter,
 * the hooks that refuse before a route runs) reaches it from the request, with no global state.
 */
export function registerErrorStyle(fastify: FastifyInstance, style: ErrorStyle): void {
  fastify.decorate('errorStyle', style);
}

export const errorStyleOf = (request: FastifyRequest): ErrorStyle => request.server?.errorStyle ?? 'standard';
