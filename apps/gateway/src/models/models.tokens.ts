export const CATALOG = Symbol('CATALOG');
