export * from './video-sizes';
export * from './video-jobs';
export * from './video-constraints';
export * from './subjects';
export * from './schemas';
