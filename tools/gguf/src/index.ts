export * from './write-tiny-gguf';
