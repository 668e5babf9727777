'use strict';
// What was measured: package versions (the library's peers and the SQLite drivers from the root node_modules,
// the other systems from bench/node_modules), the SQLite version each driver bundles, and the Redis version
// (the PostgreSQL server version comes with the results of scenarios/postgres.js, which may be skipped).
const fs = require('node:fs');
const path = require('node:path');
const { BENCH_DIR, ROOT_DIR } = require('./common');

function packageVersion(dir, name) {
  const file = path.join(dir, 'node_modules', name, 'package.json');
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')).version : null;
}

async function sqliteVersionOf(dir) {
  const out = {};
  const sqlite3Dir = path.join(dir, 'node_modules', 'sqlite3');
  if (fs.existsSync(sqlite3Dir)) {
    const sqlite3 = require(sqlite3Dir);
    const db = new sqlite3.Database(':memory:');
    out.sqlite3 = await new Promise((resolve) => db.get('SELECT sqlite_version() AS v', (error, row) => resolve(error ? null : row.v)));
    await new Promise((resolve) => db.close(resolve));
  }
  const betterDir = path.join(dir, 'node_modules', 'better-sqlite3');
  if (fs.existsSync(betterDir)) {
    try {
      const Database = require(betterDir);
      const db = new Database(':memory:');
      out.betterSqlite3 = db.prepare('SELECT sqlite_version() AS v').get().v;
      db.close();
    } catch (error) {
      out.betterSqlite3 = `fails to load: ${error.message.split('\n')[0]}`;
    }
  }
  return out;
}

async function redisVersion() {
  const IORedis = require('ioredis');
  const redis = new IORedis({ host: '127.0.0.1', port: 6379, lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const info = await redis.info('server');
    return (/redis_version:(\S+)/.exec(info) || [])[1] || 'unknown';
  } finally {
    redis.disconnect();
  }
}

async function collectVersions() {
  const root = {};
  for (const name of ['typeorm', 'sqlite3', 'better-sqlite3', '@nestjs/core', 'rxjs']) root[name] = packageVersion(ROOT_DIR, name);
  const bench = {};
  for (const name of ['bullmq', 'ioredis', 'plainjob', 'pg', 'pg-boss', 'graphile-worker', 'vega', 'vega-lite'])
    bench[name] = packageVersion(BENCH_DIR, name);
  return {
    library: JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'package.json'), 'utf8')).version,
    root,
    bench,
    sqlite: await sqliteVersionOf(ROOT_DIR),
    redis: await redisVersion().catch((error) => {
      throw new Error(`cannot reach Redis on 127.0.0.1:6379 (needed for BullMQ): ${error.message}`);
    }),
  };
}

module.exports = { collectVersions };
