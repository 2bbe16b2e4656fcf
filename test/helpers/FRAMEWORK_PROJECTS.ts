/**
 * The temporary projects the packed package is installed into (test/helpers/packedPackage.ts), one per generation of
 * the frameworks it supports, each with the peers a user of that generation has. `current` is also the project of
 * test/package (types included).
 */
export const FRAMEWORK_PROJECTS = {
  /** Express 4 and NestJS 10 (whose platform-express brings Express 4; platform-fastify Fastify 4). */
  legacy: ['rxjs@7', 'reflect-metadata@0.2', 'express@4', '@nestjs/common@10', '@nestjs/core@10', '@nestjs/platform-express@10', '@nestjs/platform-fastify@10'],
  /** Express 5 and NestJS 11, with the type packages of a TypeScript user, and node-redis (for `chatflux/redis`). */
  current: [
    'rxjs@7',
    'reflect-metadata@0.2',
    'express@5',
    '@nestjs/common@11',
    '@nestjs/core@11',
    '@nestjs/platform-express@11',
    '@nestjs/platform-fastify@11',
    '@types/express@5',
    '@types/node@20',
    'redis@6',
  ],
  /** NestJS 12 (ES modules only: loaded from CommonJS through Node's require of ES modules). */
  next: ['rxjs@7', 'reflect-metadata@0.2', 'express@5', '@nestjs/common@12', '@nestjs/core@12', '@nestjs/platform-express@12', '@nestjs/platform-fastify@12'],
} as const satisfies Record<string, readonly string[]>;
