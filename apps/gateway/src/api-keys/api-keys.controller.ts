import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { CallerContext, KEYS } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { AdminOnly, Caller } from '../auth/auth.decorators';
import { KeyUsageEnricher } from '../billing/key-usage.enricher';
import { parseBody } from '../http/parse-body';
import { createKeySchema, deleteKeyQuery, newKeySettings, toLimits, updateKeySchema } from './api-keys.dto';
import { createdKeyData } from './created-key';

/** API key management for the caller's account. ADMIN keys only. */
@AdminOnly()
@Controller('api_keys')
export class ApiKeysController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly usage: KeyUsageEnricher,
  ) {}

  @Get()
  async list(@Caller() caller: CallerContext) {
    const { data } = await this.rpc.send(KEYS.LIST, { accountId: caller.accountId }, { requestId: caller.requestId });
    return { object: 'list', data: await this.usage.enrich(caller, data) };
  }

  @Get(':id')
  async get(@Param('id') id: string, @Caller() caller: CallerContext) {
    const { data } = await this.rpc.send(KEYS.GET, { accountId: caller.accountId, id }, { requestId: caller.requestId });
    const [enriched] = await this.usage.enrich(caller, [data]);
    return { data: enriched };
  }

  @Post()
  async create(@Body() body: unknown, @Caller() caller: CallerContext) {
    const input = parseBody(createKeySchema, body);
    const { apiKey, data } = await this.rpc.send(KEYS.CREATE, { accountId: caller.accountId, ...newKeySettings(input) }, { requestId: caller.requestId });
    return { success: true, data: { ...createdKeyData({ apiKey, data }), last6Chars: data.last6Chars, createdAt: data.createdAt } };
  }

  @Patch()
  async update(@Body() body: unknown, @Caller() caller: CallerContext) {
    const input = parseBody(updateKeySchema, body);
    const { data } = await this.rpc.send(
      KEYS.UPDATE,
      {
        accountId: caller.accountId,
        id: input.id,
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.expiresAt !== undefined ? { expiresAt: input.expiresAt } : {}),
        ...(input.consumptionLimit !== undefined ? { consumptionLimits: toLimits(input.consumptionLimit) } : {}),
        ...(input.limitPeriod !== undefined ? { limitPeriod: input.limitPeriod } : {}),
        ...(input.modelPrivacy !== undefined ? { modelPrivacy: input.modelPrivacy } : {}),
      },
      { requestId: caller.requestId },
    );
    return { success: true, data };
  }

  @Delete()
  async remove(@Query() query: unknown, @Caller() caller: CallerContext) {
    const { id } = parseBody(deleteKeyQuery, query ?? {});
    return this.rpc.send(KEYS.DELETE, { accountId: caller.accountId, id }, { requestId: caller.requestId });
  }
}
