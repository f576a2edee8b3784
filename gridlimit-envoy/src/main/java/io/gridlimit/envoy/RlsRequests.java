package io.gridlimit.envoy;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.envoy.config.RlsConfig;
import io.gridlimit.envoy.config.RlsDomain;
import io.gridlimit.envoy.config.RlsMatch;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.StatusRuntimeException;
import io.micronaut.core.annotation.Nullable;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What {@link EnvoyRateLimitService} reads from a {@code ShouldRateLimit} request (docs/SPEC.md §12): the strict
 * parse, the checks that refuse a request whole ({@code INVALID_ARGUMENT}, naming the field, never a value), and each
 * descriptor's rule after {@code replaces} (or its limit override, {@link RlsOverrides}). Stateless.
 */
final class RlsRequests {
    /** Stands for a request whose bytes are not a valid {@code RateLimitRequest} (compared by identity). */
    static final RateLimitRequest UNPARSABLE = RateLimitRequest.newBuilder().build();
    /** The description of {@code INVALID_ARGUMENT} for {@link #UNPARSABLE}. */
    static final String UNPARSABLE_MESSAGE = "the request is not a valid RateLimitRequest (bad protobuf "
            + "encoding, or a string that is not UTF-8)";

    private RlsRequests() {
    }

    /**
     * The service bound for a server with a request marshaller that turns bytes that are not a valid
     * {@code RateLimitRequest} into {@link #UNPARSABLE} (see {@link EnvoyRateLimitService#strictDefinition()}).
     *
     * @param bound the service as {@code bindService()} gives it
     * @return the same methods, {@code ShouldRateLimit} with the refusing marshaller
     */
    static ServerServiceDefinition strict(ServerServiceDefinition bound) {
        String name = RateLimitServiceGrpc.getShouldRateLimitMethod().getFullMethodName();
        ServerServiceDefinition.Builder out = ServerServiceDefinition.builder(RateLimitServiceGrpc.SERVICE_NAME);
        for (ServerMethodDefinition<?, ?> m : bound.getMethods()) {
            if (!m.getMethodDescriptor().getFullMethodName().equals(name)) {
                out.addMethod(m);
            }
        }
        @SuppressWarnings("unchecked")
        ServerMethodDefinition<RateLimitRequest, RateLimitResponse> should =
                (ServerMethodDefinition<RateLimitRequest, RateLimitResponse>) bound.getMethod(name);
        MethodDescriptor.Marshaller<RateLimitRequest> strict = should.getMethodDescriptor().getRequestMarshaller();
        MethodDescriptor.Marshaller<RateLimitRequest> refusing = new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(RateLimitRequest value) {
                return strict.stream(value);
            }

            @Override
            public RateLimitRequest parse(InputStream stream) {
                try {
                    return strict.parse(stream);
                } catch (StatusRuntimeException e) {
                    return UNPARSABLE; // answered INVALID_ARGUMENT by shouldRateLimit
                }
            }
        };
        return out.addMethod(should.getMethodDescriptor().toBuilder().setRequestMarshaller(refusing).build(),
                should.getServerCallHandler()).build();
    }

    /** @return why the request is refused whole, naming the field (never a value), or null */
    static @Nullable String invalid(RateLimitRequest request) {
        if (request.getDomain().isEmpty()) {
            return "domain must not be empty";
        }
        int n = request.getDescriptorsCount();
        if (n == 0 || n > EnvoyRateLimitService.MAX_DESCRIPTORS) {
            return "descriptors must hold 1 to " + EnvoyRateLimitService.MAX_DESCRIPTORS + " descriptors, got " + n;
        }
        for (int i = 0; i < n; i++) {
            RateLimitDescriptor d = request.getDescriptors(i);
            String at = "descriptors[" + i + "]";
            if (d.getEntriesCount() == 0 || d.getEntriesCount() > EnvoyRateLimitService.MAX_ENTRIES) {
                return at + ".entries must hold 1 to " + EnvoyRateLimitService.MAX_ENTRIES + " entries, got "
                        + d.getEntriesCount();
            }
            for (int j = 0; j < d.getEntriesCount(); j++) {
                if (d.getEntries(j).getKey().isEmpty()) {
                    return at + ".entries[" + j + "].key must not be empty";
                }
            }
            if (d.hasLimit() && RlsOverrides.invalid(d.getLimit()) != null) {
                return at + "." + RlsOverrides.invalid(d.getLimit());
            }
            if (d.hasHitsAddend()) {
                long cost = d.getHitsAddend().getValue();
                if (cost < 0 || cost > RateLimiter.MAX_COST) {
                    return at + ".hits_addend must be in [0, " + RateLimiter.MAX_COST + "], got "
                            + Long.toUnsignedString(cost);
                }
            }
        }
        return null;
    }

    /**
     * The rule of each descriptor and its grid key's entries, after {@code replaces} (envoyproxy/ratelimit's order:
     * match all, then drop every limited or block-list rule whose name a matched rule replaces; an unlimited rule
     * stays unlimited, as there).
     *
     * @param rules the configuration
     * @param domain the request's domain
     * @param request the checked request
     * @return one entry per descriptor: its match, or null when none matches or it was replaced
     */
    static RlsMatch[] match(RlsConfig rules, RlsDomain domain, RateLimitRequest request) {
        int n = request.getDescriptorsCount();
        RlsMatch[] matched = new RlsMatch[n];
        Set<String> replaced = new HashSet<>();
        for (int i = 0; i < n; i++) {
            RateLimitDescriptor d = request.getDescriptors(i);
            // an override replaces whatever the descriptor matches, as envoyproxy/ratelimit's GetLimit does
            List<String> keys = keys(d);
            List<String> values = values(d);
            matched[i] = rules.match(domain, keys, values);
            if (d.hasLimit()) {
                matched[i] = RlsOverrides.match(domain, d, keys, values, matched[i]);
            }
            if (matched[i] != null) {
                replaced.addAll(matched[i].rule().replaces());
            }
        }
        for (int i = 0; i < n; i++) {
            if (matched[i] != null && !matched[i].rule().unlimited() && matched[i].rule().name() != null
                    && replaced.contains(matched[i].rule().name())) {
                matched[i] = null;
            }
        }
        return matched;
    }

    /**
     * @param request the checked request
     * @param d one of its descriptors
     * @return the descriptor's cost: its own {@code hits_addend} when set (0 is a peek), else the request's
     *     ({@code 0} there means 1)
     */
    static long cost(RateLimitRequest request, RateLimitDescriptor d) {
        return d.hasHitsAddend() ? d.getHitsAddend().getValue()
                : Math.max(1, Integer.toUnsignedLong(request.getHitsAddend()));
    }

    private static List<String> keys(RateLimitDescriptor d) {
        List<String> out = new ArrayList<>(d.getEntriesCount());
        d.getEntriesList().forEach(e -> out.add(e.getKey()));
        return out;
    }

    private static List<String> values(RateLimitDescriptor d) {
        List<String> out = new ArrayList<>(d.getEntriesCount());
        d.getEntriesList().forEach(e -> out.add(e.getValue()));
        return out;
    }
}
