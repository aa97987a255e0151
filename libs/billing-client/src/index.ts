export * from './billing-settler';
