export * from './speech';
export * from './transcription';
export * from './audio-jobs';
export * from './voices';
export * from './subjects';
export * from './schemas';
