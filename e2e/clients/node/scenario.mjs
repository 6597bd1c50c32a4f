// One scenario of what applications do with a Redis client, run with a
// real Node.js client against the server on 127.0.0.1:<port>: each step
// prints one line, "step: <JSON of what the client returned>", so that
// e2e/TestNodeClientsAgainstRedis can compare radish-server's lines with
// redis-server's. Nothing printed depends on time or chance.
//
//   node scenario.mjs ioredis <port>
//   node scenario.mjs node-redis <port> [2|3]   (RESP version)
import Redis from 'ioredis';
import { createClient, BasicClientSideCache } from 'redis';

const [kind, port, resp] = process.argv.slice(2);
const lines = [];
const plain = (_, x) => {
  if (x instanceof Map) return Object.fromEntries(x);
  if (x instanceof Set) return [...x].sort();
  if (x instanceof Error) return { error: x.message };
  return x;
};
const out = (step, v) => lines.push(`${step}: ${JSON.stringify(v, plain)}`);
// what failed, as the client reports it
const err = async (p) => {
  try {
    return { ok: await p };
  } catch (e) {
    return { error: String(e.message) };
  }
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function ioredis() {
  const opts = { port: Number(port), host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 };
  const r = new Redis(opts);
  const other = new Redis(opts);
  await r.connect();
  await other.connect();
  await r.flushall();
  out('set', await r.set('greeting', 'hello', 'EX', 100));
  out('get', await r.get('greeting'));
  out('ttl>0', (await r.ttl('greeting')) > 0);
  out('mset', await r.mset({ a: '1', b: '2', '{t}c': '3' }));
  out('mget', await r.mget('a', 'b', '{t}c', 'nosuch'));
  out('incrby', await r.incrby('counter', 5));
  out('incrbyfloat', await r.incrbyfloat('counter', 0.5));
  out('wrongtype', await err(r.lpush('greeting', 'x')));
  out('hset', await r.hset('user:1', { name: 'ada', lang: 'en', visits: '3' }));
  out('hgetall', await r.hgetall('user:1'));
  out('hincrby', await r.hincrby('user:1', 'visits', 2));
  out('rpush', await r.rpush('list', 'a', 'b', 'c', 'd'));
  out('lrange', await r.lrange('list', 0, -1));
  out('sadd', await r.sadd('set', 'x', 'y', 'z', 'x'));
  out('smembers', (await r.smembers('set')).sort());
  out('zadd', await r.zadd('board', 10, 'ann', 20, 'bob', 15, 'cy'));
  out('zrange', await r.zrange('board', 0, -1, 'WITHSCORES'));
  out('zrevrank', await r.zrevrank('board', 'ann'));
  out('pipeline', await r.pipeline().set('p1', 'v').incr('p2').get('p1').lpush('greeting', 'x').exec());
  out('multi', await r.multi().set('m1', 'v').incr('m2').get('m1').exec());
  // WATCH: another connection's write aborts the transaction.
  await r.watch('watched');
  await other.set('watched', 'theirs');
  out('watch-abort', await r.multi().set('watched', 'mine').exec());
  out('watched', await r.get('watched'));
  // A script the client loads by SHA, with EVAL where the server does not know it.
  r.defineCommand('addTwice', { numberOfKeys: 1, lua: "return redis.call('INCRBY', KEYS[1], ARGV[1] * 2)" });
  out('script', await r.addTwice('scripted', 21));
  await r.script('FLUSH');
  out('script-reload', await r.addTwice('scripted', 1));
  out('eval-error', await err(r.eval("return redis.call('NOSUCH')", 0)));
  // Blocking: a timeout, then a push from the other connection.
  out('blpop-timeout', await r.blpop('queue', 0.05));
  const popped = r.blpop('queue', 5);
  await sleep(50);
  await other.rpush('queue', 'job');
  out('blpop', await popped);
  // Pub/Sub: a subscriber gets what is published, by channel and pattern.
  const sub = new Redis(opts);
  await sub.connect();
  const got = [];
  sub.on('message', (ch, msg) => got.push(['message', ch, msg]));
  sub.on('pmessage', (pat, ch, msg) => got.push(['pmessage', pat, ch, msg]));
  out('subscribe', await sub.subscribe('news'));
  out('psubscribe', await sub.psubscribe('news.*'));
  out('publish', await r.publish('news', 'one'));
  out('publish-pattern', await r.publish('news.sport', 'two'));
  for (let i = 0; i < 100 && got.length < 2; i++) await sleep(10);
  out('messages', got);
  sub.disconnect();
  // SCAN through every key, as the client iterates.
  const keys = [];
  for (let i = 0; i < 200; i++) await r.set(`scan:${i}`, i);
  await new Promise((resolve) => {
    r.scanStream({ match: 'scan:*', count: 17 })
      .on('data', (ks) => keys.push(...ks))
      .on('end', resolve);
  });
  out('scan', [...new Set(keys)].length);
  // Streams, with IDs of the test's choosing.
  out('xadd', await r.xadd('events', '1-1', 'type', 'click'));
  out('xadd2', await r.xadd('events', '2-1', 'type', 'view'));
  out('xrange', await r.xrange('events', '-', '+'));
  out('xread', await r.xread('COUNT', 1, 'STREAMS', 'events', '1-1'));
  out('xgroup', await r.xgroup('CREATE', 'events', 'g', '0'));
  out('xreadgroup', await r.xreadgroup('GROUP', 'g', 'c1', 'COUNT', 5, 'STREAMS', 'events', '>'));
  out('xack', await r.xack('events', 'g', '1-1'));
  out('xpending', await r.xpending('events', 'g'));
  out('client-setname', await r.client('SETNAME', 'scenario'));
  out('client-getname', await r.client('GETNAME'));
  out('dbsize', await r.dbsize());
  r.disconnect();
  other.disconnect();
}

async function nodeRedis() {
  const opts = { socket: { port: Number(port), host: '127.0.0.1', reconnectStrategy: false }, RESP: Number(resp || 2) };
  const c = createClient(opts);
  await c.connect();
  const other = c.duplicate();
  await other.connect();
  await c.flushAll();
  out('set', await c.set('greeting', 'hello', { EX: 100 }));
  out('get', await c.get('greeting'));
  out('mset', await c.mSet({ a: '1', b: '2' }));
  out('mget', await c.mGet(['a', 'b', 'nosuch']));
  out('incr', await c.incr('counter'));
  out('wrongtype', await err(c.lPush('greeting', 'x')));
  out('hset', await c.hSet('user:1', { name: 'ada', visits: '3' }));
  out('hgetall', await c.hGetAll('user:1'));
  out('sadd', await c.sAdd('set', ['x', 'y']));
  out('smembers', (await c.sMembers('set')).sort());
  out('zadd', await c.zAdd('board', [{ score: 10, value: 'ann' }, { score: 20, value: 'bob' }]));
  out('zrange-withscores', await c.zRangeWithScores('board', 0, -1));
  out('zscore', await c.zScore('board', 'bob'));
  out('multi', await c.multi().set('m1', 'v').incr('m2').get('m1').exec());
  await c.watch('watched');
  await other.set('watched', 'theirs');
  out('watch-abort', await err(c.multi().set('watched', 'mine').exec()));
  out('eval', await c.eval("return {KEYS[1], ARGV[1], 3}", { keys: ['k'], arguments: ['v'] }));
  out('blpop-timeout', await c.blPop('queue', 0.05));
  const popped = c.blPop('queue', 5);
  await sleep(50);
  await other.rPush('queue', 'job');
  out('blpop', await popped);
  const sub = c.duplicate();
  await sub.connect();
  const got = [];
  await sub.subscribe('news', (msg, ch) => got.push([ch, msg]));
  out('publish', await c.publish('news', 'one'));
  for (let i = 0; i < 100 && got.length < 1; i++) await sleep(10);
  out('messages', got);
  await sub.quit();
  const keys = [];
  for (let i = 0; i < 100; i++) await c.set(`scan:${i}`, String(i));
  for await (const ks of c.scanIterator({ MATCH: 'scan:*', COUNT: 13 })) keys.push(...ks);
  out('scan', [...new Set(keys)].length);
  out('xadd', await c.xAdd('events', '1-1', { type: 'click' }));
  out('xrange', await c.xRange('events', '-', '+'));
  if (Number(resp) === 3) {
    // Client-side caching (CLIENT TRACKING): a second GET is served from
    // the client's cache until another connection's write invalidates it.
    const cache = new BasicClientSideCache({ ttl: 0, maxEntries: 0, evictPolicy: 'LRU' });
    const cached = createClient({ ...opts, clientSideCache: cache });
    await cached.connect();
    await c.set('cached', 'v1');
    out('csc-get', [await cached.get('cached'), await cached.get('cached')]);
    out('csc-hits', cache.stats().hitCount);
    await other.set('cached', 'v2');
    let v;
    for (let i = 0; i < 100 && (v = await cached.get('cached')) !== 'v2'; i++) await sleep(10);
    out('csc-invalidated', v);
    await cached.quit();
  }
  out('info-server', (await c.info('server')).includes('redis_version:'));
  out('dbsize', await c.dbSize());
  await other.quit();
  await c.quit();
}

try {
  await (kind === 'ioredis' ? ioredis() : nodeRedis());
} catch (e) {
  lines.push(`failed: ${e.stack}`);
}
console.log(lines.join('\n'));
process.exit(0);
