import { FastifyReply } from 'fastify';
import { ModelDefinition } from '@svc/catalog';
import { HEADER } from '@svc/headers';

/** `x-svc-model-*` headers of an inference response. */
export function setModelHeaders(reply: FastifyReply, model: ModelDefinition): void {
  reply.header(HEADER.modelId, model.id);
  reply.header(HEADER.modelName, model.name);
  reply.header(HEADER.modelRouter, model.engine.kind);
  if (model.deprecation) {
    reply.header(HEADER.modelDeprecationWarning, model.deprecation.warning);
    reply.header(HEADER.modelDeprecationDate, model.deprecation.date);
  }
}
