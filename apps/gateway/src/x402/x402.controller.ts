import { Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { X402 } from '@svc/contracts';
import { ADMIN_REQUIRED_MESSAGE, DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { RpcClient } from '@svc/messaging';
import { AuthenticatedRequest, Public } from '../auth/auth.decorators';
import { parseBody } from '../http/parse-body';
import { walletParams, x402TransactionsQuery } from './x402.dto';

/** Settling waits for the chain through the facilitator (two calls of up to X402_FACILITATOR_TIMEOUT_MS each). */
const TOP_UP_TIMEOUT_MS = 90_000;

/**
 * x402 USDC top-ups and wallet balances, served by the wallet service (docs/wallet.md). The
 * top-up is public: the payment itself identifies the wallet. Balances and transactions are
 * read by the wallet signed in (SIGN-IN-WITH-X) or an ADMIN key of the wallet's account.
 */
@Controller('x402')
export class X402Controller {
  constructor(private readonly rpc: RpcClient) {}

  @Public()
  @Post('top-up')
  @HttpCode(200)
  async topUp(@Headers() headers: Record<string, string | undefined>, @Res({ passthrough: true }) reply: FastifyReply) {
    const requestId = reply.request.id;
    const payment = headers[HEADER.paymentSignature] ?? headers[HEADER.x402Payment] ?? headers[HEADER.xPayment];
    if (!payment) {
      const required = await this.rpc.send(X402.REQUIREMENTS, { requestId }, { requestId });
      reply.status(402).header(HEADER.paymentRequired, Buffer.from(JSON.stringify(required)).toString('base64'));
      return required;
    }
    const result = await this.rpc.send(X402.TOP_UP, { requestId, payment }, { requestId, timeoutMs: TOP_UP_TIMEOUT_MS });
    const { paymentResponse, ...data } = result;
    reply.header(HEADER.paymentResponse, paymentResponse);
    return { success: true, data };
  }

  @Get('balance/:walletAddress')
  async balance(@Param('walletAddress') walletAddress: string, @Req() request: AuthenticatedRequest) {
    const { walletAddress: address } = parseBody(walletParams, { walletAddress });
    const data = await this.rpc.send(X402.BALANCE, readerOf(request, address), { requestId: request.id });
    return { success: true, data };
  }

  @Get('transactions/:walletAddress')
  async transactions(@Param('walletAddress') walletAddress: string, @Query() query: unknown, @Req() request: AuthenticatedRequest) {
    const { walletAddress: address } = parseBody(walletParams, { walletAddress });
    const page = parseBody(x402TransactionsQuery, query ?? {});
    const data = await this.rpc.send(X402.TRANSACTIONS, { ...readerOf(request, address), ...page }, { requestId: request.id });
    return { success: true, data };
  }
}

/**
 * Who may read a wallet: the wallet itself (SIGN-IN-WITH-X), or an ADMIN key, limited to the wallet
 * of its own account (the wallet service answers 403 otherwise).
 */
function readerOf(request: AuthenticatedRequest, walletAddress: string) {
  const key = request.apiKey!;
  if (key.wallet) {
    const same = key.wallet.network === 'evm' ? key.wallet.address.toLowerCase() === walletAddress.toLowerCase() : key.wallet.address === walletAddress;
    if (!same) {
      throw new DomainError(ErrorCode.Forbidden, 'The signed-in wallet is not the wallet requested.');
    }
  } else if (key.apiKeyType !== 'ADMIN') {
    throw new DomainError(ErrorCode.AdminRequired, ADMIN_REQUIRED_MESSAGE);
  }
  return { requestId: request.id, walletAddress, accountId: key.accountId };
}
