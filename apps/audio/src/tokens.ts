export const CATALOG = Symbol('AUDIO_CATALOG');
export const AUDIO_LOGGER = Symbol('AUDIO_LOGGER');
export const BLOB_STORE = Symbol('AUDIO_BLOB_STORE');
