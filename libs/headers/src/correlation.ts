import { HEADER } from './header-keys';
import { SERVICE_VERSION } from './version';

/** The headers every response carries: the request id under both names, and the service version. */
export function everyResponseHeaders(requestId: string): Record<string, string> {
  return { [HEADER.requestId]: requestId, [HEADER.requestIdAlias]: requestId, [HEADER.version]: SERVICE_VERSION };
}

/** A caller's own ids for a request, logged next to ours. */
export interface InboundCorrelation {
  /** An inbound `x-request-id`. */
  clientRequestId?: string;
  /** The trace id of an inbound W3C `traceparent`. */
  traceId?: string;
}

/** Short and safe to print in a log line: letters, digits and `. _ : -`, at most 64. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
/** W3C Trace Context: version-traceid-parentid-flags; version ff and all-zero ids are invalid; later versions may append fields. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(?:-.*)?$/;

/** The caller's ids from the request headers; anything malformed is ignored (never an error, never logged). */
export function inboundCorrelation(headers: Record<string, string | string[] | undefined>): InboundCorrelation {
  const out: InboundCorrelation = {};
  const id = headers[HEADER.requestIdAlias];
  if (typeof id === 'string' && CLIENT_REQUEST_ID.test(id)) out.clientRequestId = id;
  const trace = headers[HEADER.traceparent];
  const match = typeof trace === 'string' ? TRACEPARENT.exec(trace) : null;
  if (match && match[1] !== 'ff' && !/^0+$/.test(match[2]) && !/^0+$/.test(match[3])) out.traceId = match[2];
  return out;
}
