export * from './cli-io';
export * from './usage-error';
export * from './report-cli-error';
export * from './run-cli-main';
export * from './run-commands';
