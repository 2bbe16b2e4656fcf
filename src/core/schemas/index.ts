export * from './upstream.js';
export * from './contract.js';
