/** The service's pino logger (structured: ids, counts, amounts; never prompts or outputs). */
export const BILLING_LOGGER = Symbol('BILLING_LOGGER');
