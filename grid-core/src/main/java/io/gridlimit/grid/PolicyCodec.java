package io.gridlimit.grid;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import java.io.IOException;
import java.time.Duration;

/**
 * Writes a {@link Policy} into an {@code IdentifiedDataSerializable} stream and reads it back. Wire form: policy
 * name, composite flag, band count, then per band its name, algorithm configuration name (stable text, never an
 * ordinal), capacity, refill tokens, refill period (ns), limit and window (ns). Reading re-validates every value
 * through the {@link Band} factories, so a corrupt stream fails loudly instead of deciding on bad parameters.
 */
final class PolicyCodec {
    private PolicyCodec() {
    }

    static void write(ObjectDataOutput out, Policy policy) throws IOException {
        out.writeString(policy.name());
        out.writeBoolean(policy.isComposite());
        out.writeInt(policy.bands().size());
        for (Band b : policy.bands()) {
            out.writeString(b.name());
            out.writeString(b.algorithm().configName());
            out.writeLong(b.capacity());
            out.writeLong(b.refillTokens());
            out.writeLong(b.refillPeriodNanos());
            out.writeLong(b.limit());
            out.writeLong(b.windowNanos());
        }
    }

    static Policy read(ObjectDataInput in) throws IOException {
        String name = in.readString();
        boolean composite = in.readBoolean();
        int count = in.readInt();
        if (count < 1 || count > Policy.Builder.MAX_BANDS || (!composite && count != 1)) {
            throw new IOException("policy '" + name + "': band count out of range: " + count);
        }
        try {
            Policy.Builder builder = Policy.builder(name);
            for (int i = 0; i < count; i++) {
                Band band = readBand(in);
                if (composite) {
                    builder.band(band);
                } else {
                    builder.single(band);
                }
            }
            return builder.build();
        } catch (IllegalArgumentException | IllegalStateException | NullPointerException e) {
            throw new IOException("policy '" + name + "' cannot be read: " + e.getMessage(), e);
        }
    }

    private static Band readBand(ObjectDataInput in) throws IOException {
        String name = in.readString();
        Algorithm algorithm = Algorithm.fromConfigName(in.readString());
        long capacity = in.readLong();
        long refillTokens = in.readLong();
        long refillPeriodNanos = in.readLong();
        long limit = in.readLong();
        long windowNanos = in.readLong();
        return switch (algorithm) {
            case TOKEN_BUCKET -> Band.tokenBucket(name, capacity, refillTokens, Duration.ofNanos(refillPeriodNanos));
            case GCRA -> Band.gcra(name, capacity, refillTokens, Duration.ofNanos(refillPeriodNanos));
            case FIXED_WINDOW -> Band.fixedWindow(name, limit, Duration.ofNanos(windowNanos));
            case SLIDING_WINDOW_LOG -> Band.slidingWindowLog(name, limit, Duration.ofNanos(windowNanos));
            case SLIDING_WINDOW_COUNTER -> Band.slidingWindowCounter(name, limit, Duration.ofNanos(windowNanos));
        };
    }
}
