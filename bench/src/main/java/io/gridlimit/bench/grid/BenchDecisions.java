package io.gridlimit.bench.grid;

import com.hazelcast.client.impl.clientside.HazelcastClientInstance;
import com.hazelcast.client.impl.protocol.ClientMessage;
import com.hazelcast.client.impl.protocol.codec.MapExecuteOnKeysCodec;
import com.hazelcast.client.impl.proxy.ClientMapProxy;
import com.hazelcast.client.impl.spi.ClientContext;
import com.hazelcast.client.impl.spi.impl.ClientInvocation;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.map.IMap;
import com.hazelcast.map.impl.MapEntries;
import com.hazelcast.map.impl.MapService;
import com.hazelcast.map.impl.operation.MultipleEntryOperation;
import com.hazelcast.map.impl.operation.MultipleEntryOperationFactory;
import com.hazelcast.map.impl.proxy.MapProxyImpl;
import com.hazelcast.spi.impl.operationservice.OperationService;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.GridLimitHazelcast;
import io.gridlimit.grid.async.AsyncSubmitter;
import io.gridlimit.grid.owner.DecideProcessor;
import io.gridlimit.grid.owner.DecisionResult;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * BENCH ONLY (never in grid-core): the seam {@code io.gridlimit.bench.BatchingBenchmark} measures through. It reaches
 * grid-core's {@link DecideProcessor} ({@code io.gridlimit.grid.owner}) and {@link AsyncSubmitter}
 * ({@code io.gridlimit.grid.async}), public but internal to grid-core (not API; they may change in any release).
 *
 * <ul>
 *   <li>{@link #individual}: today's path: one {@link DecideProcessor} (cost 1) per key through
 *       {@link AsyncSubmitter} (member: {@code executeOnKeyInternal}'s invocation future; client: a
 *       {@code MapSubmitToKey} {@code ClientInvocation} to the key's partition), with a real
 *       {@link io.gridlimit.grid.owner.WriteStateProcessor} backup; the callback runs on the completing thread
 *       (GridLimit would hop to its callback pool; {@code GridFloorBenchmark.invocationFuture} measures the same
 *       way).</li>
 *   <li>{@link #batchMember}: one {@link BatchDecideProcessor} over a set of keys owned by one member, as
 *       {@code IMap.submitToKeys} sends it (member: {@code OperationService.invokeOnPartitionsAsync} with a
 *       {@code MultipleEntryOperationFactory}, one {@code PartitionIteratingOperation} per member; client: one
 *       {@code MapExecuteOnKeys} message, sent to the owning member), but with the callback on the completing
 *       thread instead of Hazelcast's default async executor (which is a new thread per call on 2 CPUs, see
 *       {@code GridFloorBenchmark.submitToKey}).</li>
 *   <li>{@link #batchPartition}: one {@link BatchDecideProcessor} over a set of keys of one partition: member: one
 *       {@code MultipleEntryOperation} invoked on that partition (no iterating operation); client: the
 *       {@code MapExecuteOnKeys} message sent to the partition's owner.</li>
 * </ul>
 * Each completes with the number of decisions the caller decoded ({@link DecisionResult} per key), or
 * exceptionally; a batch answering fewer decisions than keys fails. Thread-safe.
 */
public final class BenchDecisions {
    private static final Executor DIRECT = Runnable::run;

    private final Policy policy;
    private final String mapName;
    private final AsyncSubmitter submitter;
    private final SerializationService ss;
    /** Member side; null on a client. */
    private final OperationService operations;
    /** Client side; null on a member. */
    private final HazelcastClientInstance client;

    private BenchDecisions(HazelcastInstance instance, Policy policy) {
        this.policy = policy;
        this.mapName = GridLimitHazelcast.mapName(policy.name());
        IMap<String, LimiterState> map = instance.getMap(mapName);
        this.submitter = AsyncSubmitter.forMap(map);
        Object raw = map;
        if (raw instanceof MapProxyImpl<?, ?> proxy) {
            this.ss = proxy.getNodeEngine().getSerializationService();
            this.operations = proxy.getNodeEngine().getOperationService();
            this.client = null;
        } else if (raw instanceof ClientMapProxy<?, ?> proxy
                && proxy.getContext().getHazelcastInstance() instanceof HazelcastClientInstance c) {
            ClientContext context = proxy.getContext();
            this.ss = context.getSerializationService();
            this.operations = null;
            this.client = c;
        } else {
            throw new IllegalStateException("neither a member nor a client map proxy: " + raw.getClass().getName());
        }
    }

    /**
     * @param instance a member or a smart client
     * @param policy the policy of every decision (its map is {@code gridlimit.<name>})
     * @return the seam, never null
     * @throws IllegalStateException if the map proxy is neither Hazelcast's member nor client proxy
     */
    public static BenchDecisions of(HazelcastInstance instance, Policy policy) {
        return new BenchDecisions(instance, policy);
    }

    /**
     * Decides one key through today's path.
     *
     * @param key the key
     * @return completes with 1 on the thread that completes the invocation
     */
    public CompletableFuture<Integer> individual(String key) {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        submitter.submit(key, new DecideProcessor(policy, 1), DIRECT, (result, failure) -> {
            if (failure != null) {
                done.completeExceptionally(failure);
            } else {
                done.complete(result.decisions().length);
            }
        });
        return done;
    }

    /**
     * Decides a set of keys of one member in one multi-key invocation.
     *
     * @param keys distinct keys, all owned by {@code owner}
     * @param partitions the keys' partition ids (member side: the partitions invoked)
     * @param owner the owning member's uuid (client side: where the message goes)
     * @return completes with the number of decisions decoded
     */
    public CompletableFuture<Integer> batchMember(Set<String> keys, Collection<Integer> partitions, UUID owner) {
        Set<Data> dataKeys = toData(keys);
        BatchDecideProcessor processor = new BatchDecideProcessor(policy, 1);
        if (operations != null) {
            CompletableFuture<Map<Integer, Object>> answer = operations.invokeOnPartitionsAsync(
                    MapService.SERVICE_NAME, new MultipleEntryOperationFactory(mapName, dataKeys, processor),
                    partitions);
            return answer.handleAsync((byPartition, failure) -> {
                if (failure != null) {
                    throw new IllegalStateException("batch failed", failure);
                }
                int n = 0;
                for (Object value : byPartition.values()) {
                    n += decode(ss.toObject(value));
                }
                return expect(n, keys.size());
            }, DIRECT);
        }
        return viaClient(new ClientInvocation(client, MapExecuteOnKeysCodec.encodeRequest(mapName,
                ss.toData(processor), dataKeys), mapName, owner), keys.size());
    }

    /**
     * Decides a set of keys of one partition in one operation on that partition.
     *
     * @param keys distinct keys, all of partition {@code partitionId}
     * @param partitionId the partition
     * @return completes with the number of decisions decoded
     */
    public CompletableFuture<Integer> batchPartition(Set<String> keys, int partitionId) {
        Set<Data> dataKeys = toData(keys);
        BatchDecideProcessor processor = new BatchDecideProcessor(policy, 1);
        if (operations != null) {
            CompletableFuture<Integer> done = new CompletableFuture<>();
            operations.invokeOnPartition(MapService.SERVICE_NAME,
                    new MultipleEntryOperation(mapName, dataKeys, processor), partitionId)
                    .whenCompleteAsync((value, failure) -> {
                        if (failure != null) {
                            done.completeExceptionally(failure);
                            return;
                        }
                        try {
                            done.complete(expect(decode(ss.toObject(value)), keys.size()));
                        } catch (RuntimeException e) {
                            done.completeExceptionally(e);
                        }
                    }, DIRECT);
            return done;
        }
        return viaClient(new ClientInvocation(client, MapExecuteOnKeysCodec.encodeRequest(mapName,
                ss.toData(processor), dataKeys), mapName, partitionId), keys.size());
    }

    private CompletableFuture<Integer> viaClient(ClientInvocation invocation, int expected) {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        invocation.invoke().whenCompleteAsync((ClientMessage message, Throwable failure) -> {
            if (failure != null) {
                done.completeExceptionally(failure);
                return;
            }
            try {
                List<Map.Entry<Data, Data>> entries = MapExecuteOnKeysCodec.decodeResponse(message);
                int n = 0;
                for (Map.Entry<Data, Data> e : entries) {
                    n += result(ss.toObject(e.getValue()));
                }
                done.complete(expect(n, expected));
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        }, DIRECT);
        return done;
    }

    private Set<Data> toData(Set<String> keys) {
        Set<Data> data = new java.util.HashSet<>(keys.size() * 2);
        for (String key : keys) {
            data.add(ss.toData(key));
        }
        return data;
    }

    /** Decodes every key's result of one partition's {@link MapEntries}; returns the decisions counted. */
    private int decode(Object entries) {
        if (!(entries instanceof MapEntries mapEntries)) {
            throw new IllegalStateException("expected MapEntries, got " + (entries == null ? "null" : entries.getClass()));
        }
        int n = 0;
        for (int i = 0; i < mapEntries.size(); i++) {
            n += result(ss.toObject(mapEntries.getValue(i)));
        }
        return n;
    }

    private static int result(Object value) {
        if (!(value instanceof DecisionResult r)) {
            throw new IllegalStateException("expected a DecisionResult, got " + (value == null ? "null" : value.getClass()));
        }
        return r.decisions().length;
    }

    private static int expect(int decided, int keys) {
        if (decided != keys) {
            throw new IllegalStateException("a batch of " + keys + " keys answered " + decided + " decisions");
        }
        return decided;
    }
}
