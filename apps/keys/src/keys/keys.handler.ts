import { Controller } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import {
  CreateKeyReply,
  createKeyRequestSchema,
  DeleteKeyReply,
  GetKeyReply,
  keyRefRequestSchema,
  KEYS,
  keysUsedEventSchema,
  ListKeysReply,
  listKeysRequestSchema,
  UpdateKeyReply,
  updateKeyRequestSchema,
  VerifyKeyReply,
  verifyKeyRequestSchema,
} from '@svc/contracts';
import { KeyUsageRecorder } from './key-usage.recorder';
import { KeysService } from './keys.service';

/** KEYS.* over NATS: validate (ZodError becomes a Validation error), call the service. */
@Controller()
export class KeysHandler {
  constructor(
    private readonly keys: KeysService,
    private readonly usage: KeyUsageRecorder,
  ) {}

  @MessagePattern(KEYS.VERIFY)
  async verify(@Payload() data: unknown): Promise<VerifyKeyReply> {
    return { key: await this.keys.verify(verifyKeyRequestSchema.parse(data).secretHash) };
  }

  @MessagePattern(KEYS.LIST)
  async list(@Payload() data: unknown): Promise<ListKeysReply> {
    return { data: await this.keys.list(listKeysRequestSchema.parse(data).accountId) };
  }

  @MessagePattern(KEYS.GET)
  async get(@Payload() data: unknown): Promise<GetKeyReply> {
    const { accountId, id } = keyRefRequestSchema.parse(data);
    return { data: await this.keys.get(accountId, id) };
  }

  @MessagePattern(KEYS.CREATE)
  create(@Payload() data: unknown): Promise<CreateKeyReply> {
    return this.keys.create(createKeyRequestSchema.parse(data));
  }

  @MessagePattern(KEYS.UPDATE)
  async update(@Payload() data: unknown): Promise<UpdateKeyReply> {
    return { data: await this.keys.update(updateKeyRequestSchema.parse(data)) };
  }

  @MessagePattern(KEYS.DELETE)
  async delete(@Payload() data: unknown): Promise<DeleteKeyReply> {
    const { accountId, id } = keyRefRequestSchema.parse(data);
    await this.keys.delete(accountId, id);
    return { success: true };
  }

  /** Fire-and-forget: a malformed event is dropped, never answered. */
  @EventPattern(KEYS.USED)
  used(@Payload() data: unknown): void {
    const parsed = keysUsedEventSchema.safeParse(data);
    if (parsed.success) this.usage.record(parsed.data.uses);
  }
}
