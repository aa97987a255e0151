export const CATALOG = Symbol('CATALOG');
export const MEDIA_LOGGER = Symbol('MEDIA_LOGGER');
export const BLOB_STORE = Symbol('BLOB_STORE');
