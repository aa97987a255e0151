export * from './job-connections';
export * from './jobs.module';
export * from './job-worker';
export * from './job-refusal';
