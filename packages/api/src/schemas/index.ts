/** Record schemas by area. */
export * from './contact';
export * from './email';
export * from './form';
export * from './list';
export * from './property';
export * from './workflow';
export * from './content';
