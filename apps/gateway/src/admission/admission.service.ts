import { Inject, Injectable } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { Logger } from '@svc/logging';
import { GATEWAY_LOGGER } from '../logger.token';
import { ADMISSION_STAGES, AdmissionRequest, AdmissionStage, AdmissionTicket, UsageReport } from './admission.types';

/** The admission of one request: every stage admitted it; settle once when it is over. */
export class Admission {
  private settled = false;

  constructor(
    private readonly tickets: AdmissionTicket[],
    private readonly logger: Logger,
    private readonly requestId: string,
  ) {}

  applyHeaders(reply: FastifyReply): void {
    for (const ticket of this.tickets) for (const [name, value] of Object.entries(ticket.headers)) reply.header(name, value);
  }

  /** Idempotent; never throws (a settlement failure is logged, the response is already decided). */
  async settle(usage: UsageReport | null): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    await settleAll(this.tickets, usage, this.logger, this.requestId);
  }
}

/** Runs the admission stages in order; a refusal releases what earlier stages admitted. */
@Injectable()
export class AdmissionService {
  constructor(
    @Inject(ADMISSION_STAGES) private readonly stages: AdmissionStage[],
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
  ) {}

  async admit(request: AdmissionRequest): Promise<Admission> {
    const tickets: AdmissionTicket[] = [];
    try {
      for (const stage of this.stages) tickets.push(await stage.admit(request));
    } catch (err) {
      await settleAll(tickets, null, this.logger, request.requestId);
      throw err;
    }
    return new Admission(tickets, this.logger, request.requestId);
  }
}

async function settleAll(tickets: AdmissionTicket[], usage: UsageReport | null, logger: Logger, requestId: string): Promise<void> {
  await Promise.all(
    tickets.map((ticket) =>
      ticket.settle(usage).catch((err: unknown) => logger.error({ requestId, err: err instanceof Error ? err.message : String(err) }, 'admission settlement failed')),
    ),
  );
}
