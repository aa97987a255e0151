import { DynamicModule, Module } from '@nestjs/common';
import { BillingSettler, settlementJournalProvider, settleWindowProvider } from '@svc/billing-client';
import { Logger } from '@svc/logging';
import { SERVICE_LOGGER } from '@svc/messaging';
import { NodeClient } from './node-client';
import { CryptoRpcConfig } from './rpc.config';
import { RpcHandler } from './rpc.handler';
import { RpcPricer } from './rpc-pricer';
import { RpcProxyService } from './rpc-proxy.service';
import { NODE_CLIENT, RPC_LOGGER, RPC_PRICER } from './rpc.tokens';

/** The blockchain JSON-RPC proxy (CRYPTO_RPC.* on NATS); needs MessagingModule. */
@Module({})
export class RpcModule {
  static forConfig(config: CryptoRpcConfig & { SETTLEMENT_JOURNAL_DIR: string; SETTLE_WINDOW_MS: number }, logger: Logger): DynamicModule {
    const networks = Object.values(config.CRYPTO_RPC_NETWORKS);
    if (networks.length > 0) {
      // What is served, for the operator; never the node URLs.
      logger.info(
        { networks: networks.map((n) => ({ network: n.slug, family: n.family, chainId: n.chainId, nodes: n.urls.length, baseCredits: n.baseCredits })) },
        'crypto RPC networks',
      );
    }
    return {
      module: RpcModule,
      controllers: [RpcHandler],
      providers: [
        { provide: RPC_PRICER, useValue: new RpcPricer(config) },
        { provide: NODE_CLIENT, useValue: new NodeClient(config.CRYPTO_RPC_TIMEOUT_MS, config.CRYPTO_RPC_MAX_RESPONSE_BYTES) },
        { provide: RPC_LOGGER, useValue: logger },
        { provide: SERVICE_LOGGER, useValue: logger },
        BillingSettler,
        settlementJournalProvider(config.SETTLEMENT_JOURNAL_DIR, 'wallet', logger),
        settleWindowProvider(config.SETTLE_WINDOW_MS),
        RpcProxyService,
      ],
    };
  }
}
