export * from './fake-openai-upstream';
export * from './fake-upstream-options';
export * from './synthetic-completion';
export * from './scripted-upstream';
