package io.gridlimit.micronaut.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.HazelcastRateLimiter;
import io.gridlimit.grid.lease.LeaseStats;
import io.gridlimit.micronaut.support.Ports;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The filter with quota leases on (docs/SPEC.md §13; application-gl-leases.yml: window 1 s, life 2 s, so that
 * sequential test requests make a key busy), over real HTTP with the owner's clock frozen: a busy key never gets
 * more than the policy's capacity however its requests are decided, no leased decision shows more remaining than the
 * exact limiter has, a later rule's denial gives a leased unit back into the lease (all-or-nothing, SPEC §10), and
 * the handler's actual cost settles into the lease. Each test has its own client IP. After a test's requests the
 * leases end on the replica's own clock within their life (2 s); the tests wait for their give-backs with Awaitility
 * and then compare the owner's state with the exact figure. The policies waited on refill slowly, so that their
 * states outlive the wait: Hazelcast expires entries in real time, while the owner's clock here is frozen.
 */
@MicronautTest(environments = "gl-leases")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeasedFilterTest implements TestPropertyProvider {
    private static final Pattern REMAINING = Pattern.compile(";r=([0-9]+)");

    @Inject
    @Client("/")
    HttpClient client;

    @Inject
    HazelcastRateLimiter limiter;

    @Override
    public Map<String, String> getProperties() {
        return Ports.ownMember("gl-leases");
    }

    private HttpResponse<?> get(String path, String clientIp) {
        try {
            return client.toBlocking().exchange(HttpRequest.GET(path).header("X-Forwarded-For", clientIp),
                    String.class);
        } catch (HttpClientResponseException e) {
            return e.getResponse();
        }
    }

    private static long remaining(HttpResponse<?> r) {
        Matcher m = REMAINING.matcher(r.getHeaders().get("RateLimit"));
        assertThat(m.find()).as("RateLimit header %s", r.getHeaders().get("RateLimit")).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** What the owner has left for the key, from a probe the policy always denies (it consumes nothing). */
    private long ownerRemaining(Policy policy, String key, long capacity) {
        Decision probe = limiter.tryAcquire(policy, key, capacity);
        assertThat(probe.allowed()).as("probe %s", probe).isFalse();
        return probe.remaining();
    }

    private static Policy bucket(String name, long capacity, long refillTokens, Duration period) {
        return Policy.builder(name).single(Band.tokenBucket(name, capacity, refillTokens, period)).build();
    }

    @Test
    void aBusyKeyNeverGetsMoreThanTheCapacityAndNoLeasedDecisionOverstatesWhatIsLeft() {
        LeaseStats before = limiter.leaseStats();
        int admitted = 0;
        for (int i = 0; i < 150; i++) {
            HttpResponse<?> r = get("/t/api", "10.20.0.1");
            if (r.code() == 200) {
                admitted++;
                // the exact limiter, clock frozen, has 100 − admitted left; a lease shows what its grant holds
                assertThat(remaining(r)).as("request %d", i).isLessThanOrEqualTo(100 - admitted);
            } else {
                assertThat(r.code()).isEqualTo(429);
            }
        }
        assertThat(admitted).isEqualTo(100);
        assertThat(limiter.leaseStats().leasedDecisions()).as("decided from leases")
                .isGreaterThan(before.leasedDecisions() + 50);
        // every unit is accounted for: 100 admitted, so nothing is left on the owner nor out on a lease
        assertThat(ownerRemaining(bucket("api", 100, 100, Duration.ofHours(1)), "ip:10.20.0.1", 100)).isZero();
    }

    @Test
    void aLaterRulesDenialGivesTheLeasedUnitBackIntoTheLease() {
        int admitted = 0;
        for (int i = 0; i < 80; i++) {
            admitted += get("/t/multi", "10.20.0.2").code() == 200 ? 1 : 0;
        }
        // multi-b (a fixed window of 50) binds; multi-a (GCRA 100, leased) gave back each of the 30 denied
        assertThat(admitted).isEqualTo(50);
        // (multi-a refills 100 an hour: its state outlives the wait in real time, as Hazelcast's expiry is real time)
        Policy multiA = Policy.builder("multi-a").single(Band.gcra("multi-a", 100, 100, Duration.ofHours(1)))
                .build();
        // the leases end within their life; then the owner holds exactly 100 − 50
        await().atMost(Duration.ofSeconds(20)).until(() -> ownerRemaining(multiA, "ip:10.20.0.2", 100) == 50);
        assertThat(ownerRemaining(multiA, "ip:10.20.0.2", 100)).isEqualTo(50);
    }

    @Test
    void theHandlersActualCostSettlesIntoTheLease() {
        LeaseStats before = limiter.leaseStats();
        for (int i = 0; i < 20; i++) {
            // each request reserves the route's cost of 10 and states an actual cost of 3
            assertThat(get("/t/metered/header/3", "10.20.0.3").code()).isEqualTo(200);
        }
        assertThat(limiter.leaseStats().localSettles()).isGreaterThan(before.localSettles());
        Policy metered = bucket("metered", 1000, 1, Duration.ofHours(1));
        await().atMost(Duration.ofSeconds(20)).until(() -> ownerRemaining(metered, "ip:10.20.0.3", 1000) == 940);
        assertThat(ownerRemaining(metered, "ip:10.20.0.3", 1000)).isEqualTo(1000 - 20 * 3);
    }
}
