export const CATALOG = Symbol('CATALOG');
export const CHAT_LOGGER = Symbol('CHAT_LOGGER');
