package io.gridlimit.bench;

import java.util.List;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

/**
 * The two Redis peers, both the sliding-window counter (SPEC §3's {@code sliding-window-counter}: limit L per
 * window W, weighted by the previous window), over a {@link JedisPool}:
 * <ul>
 *   <li>{@link #luaSlidingWindow}: ATOMIC, one {@code EVALSHA} of {@link #LUA}: the server reads its own clock
 *       ({@code TIME}, microseconds), reads both windows' counts, decides with
 *       {@code (W - e)·prev + W·(cur + cost) <= W·L} (all values below 2^53, so exact in Lua's doubles) and
 *       increments only when admitted, in one script no other command can interleave with;</li>
 *   <li>{@link #seedsTwoPipelines}: the original Python limiter (bench/README.md), line by line: a pipeline of two
 *       {@code GET}s, the weighted count computed on the CALLER with its wall clock in floating point, then a
 *       second pipeline {@code INCR} + {@code EXPIRE}. Between the two pipelines other callers read the same
 *       counts: a race over-admits. That code denies when the weighted count {@code >= limit}.</li>
 * </ul>
 * Keys are {@code <key>:<window start>} as in that code (the Lua script builds them on the server, which a Redis
 * Cluster would refuse: standalone only, as here). Thread-safe (the pool is).
 */
public final class RedisLimiters {
    /** The atomic script: KEYS[1] = key prefix; ARGV = window in microseconds, limit, cost. Returns 1 or 0. */
    public static final String LUA = String.join("\n",
            "local t = redis.call('TIME')",
            "local now = tonumber(t[1]) * 1000000 + tonumber(t[2])",
            "local w = tonumber(ARGV[1])",
            "local limit = tonumber(ARGV[2])",
            "local cost = tonumber(ARGV[3])",
            "local k = math.floor(now / w)",
            "local curKey = KEYS[1] .. ':' .. k",
            "local prev = tonumber(redis.call('GET', KEYS[1] .. ':' .. (k - 1)) or '0')",
            "local cur = tonumber(redis.call('GET', curKey) or '0')",
            "local e = now - k * w",
            "if (w - e) * prev + w * (cur + cost) <= w * limit then",
            "  redis.call('INCRBY', curKey, cost)",
            "  redis.call('PEXPIRE', curKey, math.floor(2 * w / 1000))",
            "  return 1",
            "end",
            "return 0");

    private final JedisPool pool;
    private final String sha;
    private final long windowSeconds;
    private final long limit;

    /**
     * @param pool the connection pool (not owned)
     * @param limit L, requests per window
     * @param windowSeconds W, in whole seconds (the seed's unit)
     */
    public RedisLimiters(JedisPool pool, long limit, long windowSeconds) {
        this.pool = pool;
        this.limit = limit;
        this.windowSeconds = windowSeconds;
        try (Jedis jedis = pool.getResource()) {
            this.sha = jedis.scriptLoad(LUA);
        }
    }

    /**
     * One atomic decision of cost 1.
     *
     * @param key the key
     * @return true when admitted
     */
    public boolean luaSlidingWindow(String key) {
        try (Jedis jedis = pool.getResource()) {
            Object r = jedis.evalsha(sha, List.of(key),
                    List.of(Long.toString(windowSeconds * 1_000_000L), Long.toString(limit), "1"));
            return Long.valueOf(1L).equals(r);
        }
    }

    /**
     * The seed's {@code verificar_limite_requisicao}, non-atomic (two pipelines, decision on the caller).
     *
     * @param key the key
     * @return true when admitted
     */
    public boolean seedsTwoPipelines(String key) {
        double now = System.currentTimeMillis() / 1000.0;                 // agora = time.time()
        long current = (long) Math.floor(now / windowSeconds) * windowSeconds; // janela_atual
        long previous = current - windowSeconds;                          // janela_anterior
        String currentKey = key + ":" + current;
        String previousKey = key + ":" + previous;
        try (Jedis jedis = pool.getResource()) {
            Pipeline pipe = jedis.pipelined();
            Response<String> prev = pipe.get(previousKey);
            Response<String> cur = pipe.get(currentKey);
            pipe.sync();
            long prevCount = prev.get() == null ? 0 : Long.parseLong(prev.get());
            long curCount = cur.get() == null ? 0 : Long.parseLong(cur.get());
            double elapsed = now - current;                               // tempo_decorrido
            double previousWeight = (windowSeconds - elapsed) / windowSeconds; // peso_anterior
            double weighted = prevCount * previousWeight + curCount;      // requisicoes_ponderadas
            if (weighted >= limit) {
                return false;
            }
            Pipeline write = jedis.pipelined();
            write.incr(currentKey);
            write.expire(currentKey, windowSeconds * 2);
            write.sync();
            return true;
        }
    }
}
