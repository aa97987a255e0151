/** Injection tokens of the JSON-RPC proxy module. */
export const RPC_PRICER = Symbol('RPC_PRICER');
export const NODE_CLIENT = Symbol('NODE_CLIENT');
export const RPC_LOGGER = Symbol('RPC_LOGGER');
