import { ChatCompletionChunk, StreamEnd } from '@svc/contracts';
import { StreamEncoder } from '../chat/sse-streamer';
import { ResponsesRequestBody } from './responses-request.dto';
import { finishOf, messageItem, newId, ResponseIdentity, reasoningItem, responseShell, toResponseUsage } from './responses-response.mapper';
import { FunctionCallItem, MessageItem, OutputItem, ReasoningItem, ResponseObject, ResponseStreamEvent } from './responses.types';
import { TextPiece, ThinkSplitter } from './think-splitter';

type TextItem = MessageItem | ReasoningItem;
interface Placed<T extends OutputItem> {
  item: T;
  index: number;
}
/** A tool call delta as upstream engines send them: the first names the call, later ones add arguments. */
type ToolCallDelta = { index: number; id?: string; function?: { name?: string; arguments?: string } };

/**
 * Turns the chat service's `chat.completion.chunk`s into the Responses API's stream events:
 * `response.created`, `response.in_progress`, then per output item `output_item.added`,
 * `content_part.added`, the text (or reasoning text, or function call argument) deltas, their
 * `done` events and `output_item.done`, and last `response.completed` (`response.incomplete` when
 * cut by max_output_tokens) with the usage, or `error` and `response.failed`. Every event carries
 * its `sequence_number`.
 */
export class ResponsesStreamMapper {
  private seq = 0;
  private started = false;
  private readonly shell: ResponseObject;
  private readonly output: OutputItem[] = [];
  /** The message or reasoning item being written; function calls stay open until the end. */
  private open: Placed<TextItem> | undefined;
  private readonly calls = new Map<number, Placed<FunctionCallItem>>();
  private readonly splitter = new ThinkSplitter();

  constructor(request: ResponsesRequestBody, identity: ResponseIdentity) {
    this.shell = responseShell(request, identity);
  }

  chunk(chunk: ChatCompletionChunk): ResponseStreamEvent[] {
    const events = this.start();
    const delta = chunk.choices.find((c) => c.index === 0)?.delta;
    if (delta?.content) for (const piece of this.splitter.push(delta.content)) this.write(piece, events);
    for (const call of (delta?.tool_calls ?? []) as ToolCallDelta[]) this.writeCall(call, events);
    return events;
  }

  end(end: StreamEnd): ResponseStreamEvent[] {
    const events = this.start();
    for (const piece of this.splitter.flush()) this.write(piece, events);
    const finish = finishOf(end.finishReason);
    if (!this.output.length) this.openText('message', events);
    this.closeText(events, finish.status === 'incomplete' ? 'incomplete' : 'completed');
    this.closeCalls(events);
    const response = { ...this.snapshot(), ...finish, usage: toResponseUsage(end.usage) };
    events.push(this.event(finish.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response }));
    return events;
  }

  fail(message: string): ResponseStreamEvent[] {
    const events = this.start();
    this.closeText(events, 'incomplete');
    const error = { code: 'server_error', message };
    events.push(this.event('error', { ...error, param: null }));
    events.push(this.event('response.failed', { response: { ...this.snapshot(), status: 'failed', error } }));
    return events;
  }

  private start(): ResponseStreamEvent[] {
    if (this.started) return [];
    this.started = true;
    return [this.event('response.created', { response: this.snapshot() }), this.event('response.in_progress', { response: this.snapshot() })];
  }

  private event(type: string, fields: Record<string, unknown>): ResponseStreamEvent {
    return { type, sequence_number: this.seq++, ...fields };
  }

  /** The response as it stands (events keep their own copy: items grow after). */
  private snapshot(): ResponseObject {
    return { ...this.shell, output: structuredClone(this.output) };
  }

  private write(piece: TextPiece, events: ResponseStreamEvent[]): void {
    const type = piece.kind === 'reasoning' ? 'reasoning' : 'message';
    if (this.open?.item.type !== type) {
      this.closeText(events, 'completed');
      this.openText(type, events);
    }
    const { item, index } = this.open!;
    item.content[0].text += piece.text;
    const where = { item_id: item.id, output_index: index, content_index: 0, delta: piece.text };
    events.push(type === 'message' ? this.event('response.output_text.delta', { ...where, logprobs: [] }) : this.event('response.reasoning_text.delta', where));
  }

  private openText(type: TextItem['type'], events: ResponseStreamEvent[]): void {
    const item = type === 'message' ? messageItem('', 'in_progress') : reasoningItem('', 'in_progress');
    const index = this.output.push(item) - 1;
    this.open = { item, index };
    events.push(this.event('response.output_item.added', { output_index: index, item: { ...structuredClone(item), content: [] } }));
    events.push(this.event('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part: structuredClone(item.content[0]) }));
  }

  private closeText(events: ResponseStreamEvent[], status: TextItem['status']): void {
    if (!this.open) return;
    const { item, index } = this.open;
    this.open = undefined;
    const part = item.content[0];
    const where = { item_id: item.id, output_index: index, content_index: 0 };
    events.push(
      item.type === 'message'
        ? this.event('response.output_text.done', { ...where, text: part.text, logprobs: [] })
        : this.event('response.reasoning_text.done', { ...where, text: part.text }),
    );
    events.push(this.event('response.content_part.done', { ...where, part: structuredClone(part) }));
    item.status = status;
    events.push(this.event('response.output_item.done', { output_index: index, item: structuredClone(item) }));
  }

  private writeCall(delta: ToolCallDelta, events: ResponseStreamEvent[]): void {
    let call = this.calls.get(delta.index);
    if (!call) {
      this.closeText(events, 'completed');
      const item: FunctionCallItem = {
        type: 'function_call',
        id: newId('fc'),
        call_id: delta.id ?? newId('fc'),
        name: delta.function?.name ?? '',
        arguments: '',
        status: 'in_progress',
      };
      call = { item, index: this.output.push(item) - 1 };
      this.calls.set(delta.index, call);
      events.push(this.event('response.output_item.added', { output_index: call.index, item: structuredClone(item) }));
    }
    const piece = delta.function?.arguments;
    if (!piece) return;
    call.item.arguments += piece;
    events.push(this.event('response.function_call_arguments.delta', { item_id: call.item.id, output_index: call.index, delta: piece }));
  }

  private closeCalls(events: ResponseStreamEvent[]): void {
    for (const { item, index } of this.calls.values()) {
      events.push(this.event('response.function_call_arguments.done', { item_id: item.id, output_index: index, name: item.name, arguments: item.arguments }));
      item.status = 'completed';
      events.push(this.event('response.output_item.done', { output_index: index, item: structuredClone(item) }));
    }
    this.calls.clear();
  }
}

const sse = (events: ResponseStreamEvent[]): string => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');

/** The relay's encoder for /responses: each chat chunk in, its Responses events out as named SSE events. */
export function responsesStreamEncoder(mapper: ResponsesStreamMapper): StreamEncoder {
  return {
    chunk: (json) => sse(mapper.chunk(JSON.parse(json) as ChatCompletionChunk)),
    end: (end) => sse(mapper.end(end)),
    error: (message) => sse(mapper.fail(message)),
  };
}
