"""One scenario of what applications do with redis-py (Debian's
python3-redis), against the server on 127.0.0.1:<port>: each step prints
one line, "step: <repr of what the client returned>", so that
e2e/TestPythonClientAgainstRedis can compare radish-server's lines with
redis-server's. Nothing printed depends on time or chance.

    /usr/bin/python3 scenario.py <port>
"""
import sys
import threading
import time

import redis

port = int(sys.argv[1])
lines = []


def out(step, v):
    lines.append("%s: %r" % (step, v))


def err(f, *args):
    try:
        return ("ok", f(*args))
    except redis.RedisError as e:
        return ("error", type(e).__name__, str(e))


def scenario():
    pool = redis.ConnectionPool(host="127.0.0.1", port=port, decode_responses=True)
    r = redis.Redis(connection_pool=pool)
    other = redis.Redis(host="127.0.0.1", port=port, decode_responses=True)
    r.flushall()
    out("set", r.set("greeting", "hello", ex=100))
    out("get", r.get("greeting"))
    out("ttl>0", r.ttl("greeting") > 0)
    out("setnx", r.set("greeting", "again", nx=True))
    out("getdel", r.getdel("greeting"))
    out("mset", r.mset({"a": "1", "b": "2"}))
    out("mget", r.mget(["a", "b", "nosuch"]))
    out("incr", r.incr("counter", 7))
    out("incrbyfloat", r.incrbyfloat("counter", 1.25))
    r.set("str", "x")
    out("wrongtype", err(r.lpush, "str", "y"))
    out("hset", r.hset("user:1", mapping={"name": "ada", "visits": "3"}))
    out("hgetall", r.hgetall("user:1"))
    out("hincrby", r.hincrby("user:1", "visits", 4))
    out("rpush", r.rpush("list", *"abcde"))
    out("lrange", r.lrange("list", 1, -2))
    out("sadd", r.sadd("set", "x", "y", "z"))
    out("smembers", sorted(r.smembers("set")))
    out("zadd", r.zadd("board", {"ann": 10, "bob": 20.5, "cy": 15}))
    out("zrange", r.zrange("board", 0, -1, withscores=True))
    out("zrangebyscore", r.zrangebyscore("board", 11, "+inf"))
    out("zincrby", r.zincrby("board", 1.5, "ann"))
    # A pipeline, transactional and not.
    p = r.pipeline(transaction=False)
    p.set("p1", "v").incr("p2").get("p1")
    out("pipeline", p.execute())
    p = r.pipeline()
    p.set("m1", "v").incr("m2").lpush("m1", "x")
    out("multi", err(p.execute))
    # WATCH, retried as redis-py's transaction helper does.
    tries = []

    def bump(pipe):
        tries.append(1)
        n = int(pipe.get("watched") or 0)
        if len(tries) == 1:
            other.set("watched", "10")  # another client writes between
        pipe.multi()
        pipe.set("watched", n + 1)

    out("transaction", r.transaction(bump, "watched"))
    out("transaction-tries", len(tries))
    out("watched", r.get("watched"))
    # A registered script: EVALSHA, EVAL again after a flush.
    double = r.register_script("return redis.call('INCRBY', KEYS[1], ARGV[1] * 2)")
    out("script", double(keys=["scripted"], args=[21]))
    r.script_flush()
    out("script-reload", double(keys=["scripted"], args=[1]))
    out("eval-error", err(r.eval, "return redis.call('NOSUCH')", 0))
    out("eval-table", r.eval("return {1, 'two', {3}}", 0))
    # Blocking pops: a timeout, then a push from another thread.
    out("blpop-timeout", r.blpop("queue", timeout=0.05))
    threading.Timer(0.05, lambda: other.rpush("queue", "job")).start()
    out("blpop", r.blpop("queue", timeout=5))
    # Pub/Sub.
    ps = r.pubsub()
    ps.subscribe("news")
    ps.psubscribe("news.*")
    got = []
    for _ in range(2):
        got.append(ps.get_message(timeout=1))
    r.publish("news", "one")
    r.publish("news.sport", "two")
    for _ in range(2):
        m = None
        for _ in range(100):
            m = ps.get_message(timeout=0.05)
            if m:
                break
        got.append(m)
    out("pubsub", got)
    ps.close()
    # SCAN iterators.
    for i in range(150):
        r.set("scan:%d" % i, i)
    out("scan_iter", len(set(r.scan_iter(match="scan:*", count=11))))
    r.hset("bighash", mapping={"f%d" % i: i for i in range(300)})
    out("hscan_iter", len(dict(r.hscan_iter("bighash", count=20))))
    # Streams.
    out("xadd", r.xadd("events", {"type": "click"}, id="1-1"))
    out("xadd2", r.xadd("events", {"type": "view"}, id="2-1"))
    out("xrange", r.xrange("events"))
    out("xgroup", r.xgroup_create("events", "g", id="0"))
    out("xreadgroup", r.xreadgroup("g", "c1", {"events": ">"}, count=5))
    out("xack", r.xack("events", "g", "1-1"))
    out("xpending", r.xpending("events", "g"))
    # Expiry and keys.
    out("expire", r.expire("a", 100))
    out("persist", r.persist("a"))
    out("type", r.type("board"))
    out("exists", r.exists("a", "b", "nosuch"))
    out("rename", r.rename("b", "b2"))
    out("object-encoding", r.object("encoding", "list"))
    out("client-setname", r.client_setname("scenario"))
    out("client-getname", r.client_getname())
    out("info-server", "redis_version" in r.info("server"))
    out("dbsize", r.dbsize())


try:
    scenario()
except Exception as e:  # the scenario's own failure is a line too
    lines.append("failed: %s: %s" % (type(e).__name__, e))
print("\n".join(lines))
