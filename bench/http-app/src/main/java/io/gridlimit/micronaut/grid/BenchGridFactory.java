package io.gridlimit.micronaut.grid;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import io.gridlimit.bench.http.GridFloorProcessor;
import io.gridlimit.grid.GridLimitHazelcast;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.config.HazelcastMode;
import io.gridlimit.time.TimeSource;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.exceptions.ConfigurationException;
import jakarta.inject.Singleton;

/**
 * The HTTP bench's one embedded member, in every mode of {@code bench/http-skewed.sh}: the library's own member
 * configuration ({@link GridFactory#memberConfig}, the reason this class sits in the library's package: split
 * package, bench only, the library unchanged) plus Bucket4j's custom serializers (type ids from
 * {@value #BUCKET4J_TYPE_ID_BASE}, as Bucket4j's Hazelcast integration asks and as {@code BenchMember} registers them)
 * and the grid floor's processor factory ({@link GridFloorProcessor#FACTORY_ID}),
 * then GridLimit's serialization and map configuration exactly as {@link GridFactory#hazelcastInstance} adds them. So
 * the member is the same whether the library or the Bucket4j filter limits the route.
 */
@Factory
public class BenchGridFactory {
    /** First Hazelcast serializer type id of Bucket4j's serializers. */
    public static final int BUCKET4J_TYPE_ID_BASE = 10_000;

    /**
     * Starts the embedded member.
     *
     * @param config the checked configuration (an embedded member; a client is refused)
     * @param timeSource the decisions' clock (GridLimit's cluster time unless replaced)
     * @return the running member
     * @throws ConfigurationException if {@code gridlimit.hazelcast.mode} is client
     */
    @Singleton
    @Bean(preDestroy = "shutdown")
    @Replaces(bean = HazelcastInstance.class, factory = GridFactory.class)
    public HazelcastInstance hazelcastInstance(GridLimitConfig config, TimeSource timeSource) {
        if (config.hazelcast().mode() == HazelcastMode.CLIENT) {
            throw new ConfigurationException("the HTTP bench runs one embedded member, not a client");
        }
        Config member = GridFactory.memberConfig(config.hazelcast());
        HazelcastProxyManager.addCustomSerializers(member.getSerializationConfig(), BUCKET4J_TYPE_ID_BASE);
        member.getSerializationConfig().addDataSerializableFactory(GridFloorProcessor.FACTORY_ID,
                GridFloorProcessor.factory());
        if (timeSource instanceof GridTimeSource) {
            GridLimitHazelcast.configure(member);
        } else {
            GridLimitHazelcast.configure(member, timeSource);
        }
        return Hazelcast.newHazelcastInstance(member);
    }
}
