import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { BillingSettler } from '@svc/billing-client';
import { CryptoRpcCallReply, CryptoRpcCallRequest, CryptoRpcNetworksReply, CryptoRpcQuoteReply, CryptoRpcQuoteRequest } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { NodeClient, NodeFailure } from './node-client';
import { answersBody, chargedCredits } from './rpc-answer';
import { RpcPricer } from './rpc-pricer';
import { NODE_CLIENT, RPC_LOGGER, RPC_PRICER } from './rpc.tokens';

/**
 * The JSON-RPC proxy: prices a body, relays it to the network's node, and settles the gateway's
 * hold with the credits the answer is charged (released when no node answers). Logs the network,
 * counts, credits and failure reasons only: never params, results or node URLs.
 */
@Injectable()
export class RpcProxyService implements OnApplicationShutdown {
  constructor(
    @Inject(RPC_PRICER) private readonly pricer: RpcPricer,
    @Inject(NODE_CLIENT) private readonly nodes: NodeClient,
    @Inject(RPC_LOGGER) private readonly logger: Logger,
    private readonly billing: BillingSettler,
  ) {}

  networks(): CryptoRpcNetworksReply {
    return { networks: this.pricer.networks() };
  }

  quote({ network, methods, batch }: CryptoRpcQuoteRequest): CryptoRpcQuoteReply {
    const priced = this.pricer.price(network, methods, batch);
    return { credits: priced.credits.reduce((a, b) => a + b, 0), perCredit: this.pricer.perCredit };
  }

  call({ caller, billing, network, body }: CryptoRpcCallRequest): Promise<CryptoRpcCallReply> {
    const { requestId } = caller;
    return this.billing.around(billing, requestId, async (charge, started) => {
      const batch = Array.isArray(body);
      const items = batch ? body : [body];
      const priced = this.pricer.price(
        network,
        items.map((item) => item.method),
        batch,
      );
      let answer: unknown;
      try {
        answer = await this.nodes.post(priced.network, JSON.stringify(body), answersBody(batch), (node, failure) =>
          this.logger.warn({ requestId, network, node, reason: failure.reason, detail: failure.detail }, 'crypto RPC node attempt failed'),
        );
      } catch (err) {
        if (err instanceof NodeFailure) throw nodeError(network, err);
        throw err;
      }
      const credits = chargedCredits(items, priced.credits, answer, (full) => this.pricer.errorCredits(full));
      charge({ kind: 'rpc', credits });
      this.logger.info({ requestId, network, items: items.length, credits, ms: Date.now() - started }, 'crypto RPC relayed');
      return { body: answer, credits, costUsd: this.pricer.costUsd(credits) };
    });
  }

  onApplicationShutdown(): Promise<void> {
    return this.nodes.close();
  }
}

/** The reference's 500 for a node that failed, saying why without naming it; nothing was charged. */
function nodeError(network: string, failure: NodeFailure): DomainError {
  switch (failure.reason) {
    case 'timeout':
      return new DomainError(ErrorCode.Internal, `The ${network} node did not answer in time; nothing was charged. Retry later.`);
    case 'too_large':
      return new DomainError(
        ErrorCode.Internal,
        `The ${network} node's answer is larger than this proxy relays; nothing was charged. Ask for less (a narrower block range, a smaller batch).`,
      );
    case 'unreachable':
    case 'status':
    case 'redirect':
    case 'not_json_rpc':
      return new DomainError(ErrorCode.Internal, `The ${network} node could not be reached or gave no usable answer; nothing was charged. Retry later.`);
  }
}
