export * from './caller';
export * from './wire';
