import { RpcReply, RpcRequest, RpcSubject } from '@svc/contracts';
import type { RpcClient } from '../rpc-client';

/** How a fake answers one subject: its reply, typed by the contract, or a throw (a DomainError, as the real client throws). */
export type FakeHandlers = { [S in RpcSubject]?: (request: RpcRequest<S>) => RpcReply<S> | Promise<RpcReply<S>> };

export interface FakeRpc {
  /** Pass where an RpcClient is injected. */
  rpc: RpcClient;
  /** Every call, in order. */
  calls: Array<{ subject: RpcSubject; request: unknown }>;
}

/**
 * (Here rather than in libs/testing: that library is what messaging's own tests use, so it may
 * not depend on messaging. Import it as `@svc/messaging/testing`, never from production code.)
 *
 * An RpcClient for unit tests whose replies are checked against the contracts at compile time: a
 * handler per subject the code under test may call. A call to any other subject fails the test
 * (it throws), so a spec states exactly which services its code talks to.
 */
export function fakeRpc(handlers: FakeHandlers): FakeRpc {
  const calls: FakeRpc['calls'] = [];
  const send = async <S extends RpcSubject>(subject: S, request: RpcRequest<S>): Promise<RpcReply<S>> => {
    calls.push({ subject, request });
    const handler = handlers[subject] as ((request: RpcRequest<S>) => RpcReply<S> | Promise<RpcReply<S>>) | undefined;
    if (!handler) throw new Error(`fakeRpc: unexpected call to ${subject}`);
    return handler(request);
  };
  // The one cast: the fake implements the part of RpcClient that code under test calls.
  const rpc = { send, emit: () => undefined, close: () => undefined } as unknown as RpcClient;
  return { rpc, calls };
}
