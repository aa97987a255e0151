/**
 * OpenAI's `error.type`, `error.code` and `error.param`, carried by a DomainError for the few
 * failures OpenAI clients branch on. The gateway's error filter answers such an error in OpenAI's
 * shape, `{error: {message, type, param, code}}`, instead of `{error: string}`.
 */
export interface OpenAiErrorFields {
  type: string;
  code: string;
  param: string | null;
}
