export const GATEWAY_LOGGER = Symbol('GATEWAY_LOGGER');
