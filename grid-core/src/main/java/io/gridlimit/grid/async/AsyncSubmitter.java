package io.gridlimit.grid.async;

import com.hazelcast.client.impl.clientside.HazelcastClientInstance;
import com.hazelcast.client.impl.protocol.ClientMessage;
import com.hazelcast.client.impl.protocol.codec.MapSubmitToKeyCodec;
import com.hazelcast.client.impl.proxy.ClientMapProxy;
import com.hazelcast.client.impl.spi.ClientContext;
import com.hazelcast.client.impl.spi.impl.ClientInvocation;
import com.hazelcast.client.impl.spi.impl.ClientInvocationFuture;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.internal.util.ThreadUtil;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import com.hazelcast.map.impl.proxy.MapProxyImpl;
import com.hazelcast.spi.impl.InternalCompletableFuture;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.grid.owner.DecideProcessor;
import io.gridlimit.grid.owner.DecisionResult;
import io.gridlimit.grid.owner.SettleProcessor;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Internal to grid-core: not API; public for the holder side of leases ({@code io.gridlimit.grid.lease}) and the bench
 * module.
 *
 * <p>Submits a {@link DecideProcessor} to the owner of a key and hands its result to a callback run on a given
 * executor, without passing through Hazelcast's default async executor.
 *
 * <p>Why: {@code IMap.submitToKey} wraps the invocation in a {@code DelegatingCompletableFuture} (member) or
 * {@code ClientDelegatingFuture} (client) whose constructor registers
 * {@code whenCompleteAsync(..., defaultExecutor())} on the invocation. That default is
 * {@code ConcurrencyUtil.getDefaultAsyncExecutor()}: {@code ForkJoinPool.commonPool()}, or, when the common pool
 * has parallelism 1 (machines with 2 CPUs or fewer), {@code command -> new Thread(command).start()}: one new
 * thread per decision, whatever executor we attach our own callback to. So for the member and the client proxies
 * this class invokes the same operation ({@code EntryOperation} through
 * {@code MapProxyImpl.executeOnKeyInternal}; the {@code MapSubmitToKey} client message through a
 * {@code ClientInvocation}) and registers its one callback, with our executor, directly on the invocation future
 * ({@code AbstractInvocationFuture}), which runs a waiter registered with a non-default executor on that executor.
 *
 * <p>These are Hazelcast internals, checked against Hazelcast 5.7.0 (the version the build pins). Any other
 * {@link IMap} implementation takes the public {@code submitToKey} path, correct but paying the default executor's
 * hop. Thread-safe.
 */
public abstract class AsyncSubmitter {

    /**
     * Sends the processor to the key's owner.
     *
     * @param key the key, already validated
     * @param processor the processor
     * @param executor where {@code done} runs
     * @param done receives the {@link DecisionResult} or the failure (exactly one is non-null)
     */
    public final void submit(String key, DecideProcessor processor, Executor executor,
                      BiConsumer<DecisionResult, Throwable> done) {
        submit(key, processor, DecisionResult.class, executor, done);
    }

    /**
     * Sends any GridLimit processor to the key's owner (a {@link SettleProcessor}, docs/SPEC.md §10), by the same
     * path as a decision.
     *
     * @param key the key, already validated
     * @param processor the processor
     * @param type the class of its result
     * @param executor where {@code done} runs
     * @param done receives the result or the failure (exactly one is non-null)
     * @param <R> the result type
     */
    public abstract <R> void submit(String key, EntryProcessor<String, LimiterState, R> processor, Class<R> type,
                             Executor executor, BiConsumer<R, Throwable> done);

    /** @return a short name of the path taken, for diagnostics and tests */
    public abstract String path();

    /**
     * Chooses the path for a map proxy.
     *
     * @param map the policy map
     * @return the submitter, never null
     */
    @SuppressWarnings({"rawtypes", "unchecked"})
    public static AsyncSubmitter forMap(IMap<String, LimiterState> map) {
        IMap raw = map;
        if (raw instanceof MapProxyImpl member) {
            return new Member(member);
        }
        if (raw instanceof ClientMapProxy client
                && client.getContext().getHazelcastInstance() instanceof HazelcastClientInstance) {
            return new Client(client);
        }
        return new Public(map);
    }

    /**
     * Hands a completed invocation to {@code done} exactly once: its failure, or the decoded result, or the
     * exception decoding threw.
     */
    private static <R> void complete(BiConsumer<R, Throwable> done, Throwable failure, Supplier<R> decode) {
        if (failure != null) {
            done.accept(null, failure);
            return;
        }
        R result;
        try {
            result = decode.get();
        } catch (RuntimeException e) {
            done.accept(null, e);
            return;
        }
        done.accept(result, null);
    }

    private static <R> R toResult(SerializationService ss, Object value, Class<R> type) {
        Object result = ss.toObject(value);
        if (!type.isInstance(result)) {
            throw new IllegalStateException("expected a " + type.getSimpleName() + ", got "
                    + (result == null ? "null" : result.getClass().getName()));
        }
        return type.cast(result);
    }

    /** Embedded member: the invocation future of {@code executeOnKeyInternal}. */
    private static final class Member extends AsyncSubmitter {
        private final MapProxyImpl<String, LimiterState> proxy;
        private final SerializationService ss;

        Member(MapProxyImpl<String, LimiterState> proxy) {
            this.proxy = proxy;
            this.ss = proxy.getNodeEngine().getSerializationService();
        }

        @Override
        public <R> void submit(String key, EntryProcessor<String, LimiterState, R> processor, Class<R> type,
                        Executor executor, BiConsumer<R, Throwable> done) {
            InternalCompletableFuture<Data> future = proxy.executeOnKeyInternal(key, processor);
            future.whenCompleteAsync((data, failure) -> complete(done, failure, () -> toResult(ss, data, type)),
                    executor);
        }

        @Override
        public String path() {
            return "member";
        }
    }

    /** Client: a {@code MapSubmitToKey} request on a {@link ClientInvocation} to the key's partition owner. */
    private static final class Client extends AsyncSubmitter {
        private final String name;
        private final ClientContext context;
        private final HazelcastClientInstance client;

        Client(ClientMapProxy<String, LimiterState> proxy) {
            this.name = proxy.getName();
            this.context = proxy.getContext();
            this.client = (HazelcastClientInstance) context.getHazelcastInstance();
        }

        @Override
        public <R> void submit(String key, EntryProcessor<String, LimiterState, R> processor, Class<R> type,
                        Executor executor, BiConsumer<R, Throwable> done) {
            SerializationService ss = context.getSerializationService();
            Data keyData = ss.toData(key);
            ClientMessage request = MapSubmitToKeyCodec.encodeRequest(name, ss.toData(processor), keyData,
                    ThreadUtil.getThreadId());
            int partitionId = context.getPartitionService().getPartitionId(keyData);
            ClientInvocationFuture future = new ClientInvocation(client, request, name, partitionId).invoke();
            future.whenCompleteAsync((message, failure) -> complete(done, failure,
                    () -> toResult(ss, MapSubmitToKeyCodec.decodeResponse(message), type)), executor);
        }

        @Override
        public String path() {
            return "client";
        }
    }

    /** Any other proxy: the public {@code submitToKey}. */
    private static final class Public extends AsyncSubmitter {
        private final IMap<String, LimiterState> map;

        Public(IMap<String, LimiterState> map) {
            this.map = map;
        }

        @Override
        public <R> void submit(String key, EntryProcessor<String, LimiterState, R> processor, Class<R> type,
                        Executor executor, BiConsumer<R, Throwable> done) {
            map.submitToKey(key, processor).whenCompleteAsync(done, executor);
        }

        @Override
        public String path() {
            return "public";
        }
    }
}
