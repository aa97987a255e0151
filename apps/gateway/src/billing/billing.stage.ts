import { Injectable } from '@nestjs/common';
import { AdmissionRequest, AdmissionStage, AdmissionTicket } from '../admission/admission.types';

/** Credit reservation before work starts; settlement to the actual cost. (Issue: billing.) */
@Injectable()
export class BillingStage implements AdmissionStage {
  readonly name = 'billing';

  async admit(_request: AdmissionRequest): Promise<AdmissionTicket> {
    return { headers: {}, settle: async () => undefined };
  }
}
