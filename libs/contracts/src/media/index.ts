export * from './image-requests';
export * from './subjects';
export * from './image-styles';
export * from './schemas';
