export * from './audio-payload';
export * from './speech';
export * from './transcription';
export * from './audio-jobs';
export * from './subjects';
export * from './schemas';
