package io.gridlimit.grid.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.cluster.Address;
import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.impl.MemberImpl;
import io.gridlimit.grid.GridLimitHazelcast;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The writers' choice of format from the members' attributes, without a cluster; the rate limit of the refusal
 * log line.
 */
class WireFormatTest {
    private static int port = 6000;

    @Test
    void theLowestAdvertisedFormatWinsAndAMemberWithoutTheAttributeReadsOnlyFormatOne() throws Exception {
        assertThat(WireFormat.lowestAdvertised(List.of())).isEqualTo(1);
        assertThat(WireFormat.lowestAdvertised(members("2", "2"))).isEqualTo(2);
        assertThat(WireFormat.lowestAdvertised(members("2", null))).isEqualTo(1);
        assertThat(WireFormat.lowestAdvertised(members("3", "2"))).isEqualTo(2);
        assertThat(WireFormat.lowestAdvertised(members("3", "3"))).as("not capped here").isEqualTo(3);
        assertThat(WireFormat.lowestAdvertised(members("2", "two"))).isEqualTo(1);
        assertThat(WireFormat.lowestAdvertised(members("2", "-5"))).isEqualTo(1);
        assertThat(WireFormat.lowestAdvertised(members("2", ""))).isEqualTo(1);
    }

    @Test
    void aConfiguredMemberAdvertisesTheCurrentFormatAndTracksItsCluster() {
        com.hazelcast.config.Config config = GridLimitHazelcast.configure(new com.hazelcast.config.Config());
        assertThat(config.getMemberAttributeConfig().getAttribute(WireFormat.MEMBER_ATTRIBUTE)).isEqualTo("2");
        GridLimitHazelcast.configure(config);
        assertThat(config.getListenerConfigs()).filteredOn(l -> WireFormatListener.class.getName()
                .equals(l.getClassName())).hasSize(1);
        com.hazelcast.client.config.ClientConfig client =
                GridLimitHazelcast.configure(new com.hazelcast.client.config.ClientConfig());
        assertThat(client.getListenerConfigs()).filteredOn(l -> WireFormatListener.class.getName()
                .equals(l.getClassName())).hasSize(1);
    }

    @Test
    void aRefusalIsLoggedOncePerMinutePerTypeAndFormat() {
        String key = "WireFixtureTest/format 42";
        assertThat(WireFormat.shouldLog(key, 5)).isTrue();
        assertThat(WireFormat.shouldLog(key, 5 + WireFormat.REFUSAL_LOG_INTERVAL_NANOS - 1)).isFalse();
        assertThat(WireFormat.shouldLog(key + "x", 6)).as("another type or format has its own line").isTrue();
        assertThat(WireFormat.shouldLog(key, 5 + WireFormat.REFUSAL_LOG_INTERVAL_NANOS)).isTrue();
    }

    private static List<Member> members(String... attributes) throws UnknownHostException {
        return Arrays.stream(attributes).<Member>map(a -> {
            try {
                return new MemberImpl.Builder(new Address("127.0.0.1", port++))
                        .attributes(a == null ? Map.of() : Map.of(WireFormat.MEMBER_ATTRIBUTE, a)).build();
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e);
            }
        }).toList();
    }
}
