import { createRequire } from 'node:module';
import type KoaApplication from 'koa';
import type KoaRouter from '@koa/router';

/*
 * The CommonJS packages svc-server starts with, loaded with require rather than import. Node
 * scans every CommonJS module an ES module imports with its export lexer; scanning this start-up
 * set makes the lexer hot enough for V8 to optimise it, and that compilation stays resident:
 * about 6 MiB of an idle server's memory (docs/performance.md).
 */
const require = createRequire(import.meta.url);

export const Koa = require('koa') as typeof KoaApplication;
export type Koa = KoaApplication;
export const Router = require('@koa/router') as typeof KoaRouter;
export type Router = KoaRouter;
export const { pino } = require('pino') as typeof import('pino');
