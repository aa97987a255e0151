export * from './augment-tools';
export * from './catalog.schema';
export * from './catalog';
export * from './load-catalog';
export * from './model-view';
