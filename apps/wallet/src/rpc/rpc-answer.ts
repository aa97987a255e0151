import { JsonRpcRequestItem } from '@svc/contracts';

type JsonRpcResponse = { id?: unknown; result?: unknown; error?: unknown };

/** A JSON-RPC 2.0 response object: an object with `result` or `error`. */
export function isResponse(value: unknown): value is JsonRpcResponse {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && ('result' in value || 'error' in value);
}

/** Whether a node's answer is JSON-RPC for the body sent: one response, or for a batch an array of them (or one error for the whole batch). */
export function answersBody(batch: boolean): (answer: unknown) => boolean {
  return (answer) => (batch && Array.isArray(answer) ? answer.every(isResponse) : isResponse(answer));
}

/**
 * Credits an answer is charged: each request item answered with a result at its full credits, one
 * answered with an error at `errorCredits(full)`, one left unanswered nothing. A batch's responses
 * are matched to its items by id (nodes may reorder them); a single error answering a whole batch
 * costs one error. Never more than the sum of `full` (the hold).
 */
export function chargedCredits(items: readonly JsonRpcRequestItem[], full: readonly number[], answer: unknown, errorCredits: (full: number) => number): number {
  const costOf = (response: JsonRpcResponse, index: number) =>
    response.error !== undefined && response.error !== null ? errorCredits(full[index]) : full[index];
  if (!Array.isArray(answer)) return isResponse(answer) ? costOf(answer, 0) : 0;
  const open = new Map<string, number[]>();
  items.forEach((item, index) => {
    const key = JSON.stringify(item.id);
    open.set(key, [...(open.get(key) ?? []), index]);
  });
  let credits = 0;
  for (const response of answer) {
    if (!isResponse(response)) continue;
    const index = open.get(JSON.stringify(response.id ?? null))?.shift();
    if (index !== undefined) credits += costOf(response, index);
  }
  return credits;
}
