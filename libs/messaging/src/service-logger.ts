/** The logger a service gives to messaging helpers (RpcClient users such as @svc/billing-client's BillingSettler). */
export const SERVICE_LOGGER = Symbol('SERVICE_LOGGER');
