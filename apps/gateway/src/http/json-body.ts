import { FastifyInstance } from 'fastify';
import { assertBodyDepth } from './body-depth';
import { readBody } from './read-body';

/**
 * The JSON body parser: Fastify's own (prototype-poisoning checks included), plus three rules. The
 * body is read by `readBody` (BODY_LIMIT_BYTES and the body budget, counted as it arrives); an
 * empty body with a JSON content type (e.g. DELETE from some clients) is no body, not an error;
 * a body nested deeper than MAX_BODY_DEPTH is a 400 naming the field. The bytes and the text are
 * dropped as soon as the next form exists, so a large body is held about twice during the parse
 * (text and parsed value), not four times as with Fastify's reader (chunks, joined bytes, text,
 * value); bench/body-memory measures it.
 */
export function registerJsonBody(fastify: FastifyInstance, limit: number): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'ignore');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', (request, payload, done) => {
    readBody(request, payload, limit, (failed, bytes) => {
      if (failed || !bytes) return done(failed, undefined);
      if (bytes.length === 0) return done(null, undefined);
      const text = bytes.toString('utf8');
      bytes = undefined;
      void parseJson(request, text, (err, parsed) => {
        if (err) return done(err, undefined);
        try {
          assertBodyDepth(parsed);
        } catch (refused) {
          return done(refused as Error, undefined);
        }
        done(null, parsed);
      });
    });
  });
}
