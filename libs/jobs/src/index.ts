export * from './job-connections';
export * from './jobs.module';
