import { FastifyInstance } from 'fastify';
import { assertBodyDepth } from './body-depth';

/**
 * The JSON body parser: Fastify's own (prototype-poisoning checks included), plus two rules. An
 * empty body with a JSON content type (e.g. DELETE from some clients) is no body, not an error;
 * a body nested deeper than MAX_BODY_DEPTH is a 400 naming the field.
 */
export function registerJsonBody(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'ignore');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    void parseJson(request, body as string, (err, parsed) => {
      if (err) return done(err, undefined);
      try {
        assertBodyDepth(parsed);
      } catch (refused) {
        return done(refused as Error, undefined);
      }
      done(null, parsed);
    });
  });
}
