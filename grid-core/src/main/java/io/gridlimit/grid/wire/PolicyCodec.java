package io.gridlimit.grid.wire;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.gridlimit.calendar.CalendarPeriods;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Internal to grid-core: not API; public for the processors of {@code io.gridlimit.grid.owner} and
 * {@code io.gridlimit.grid.catalog}, {@code PolicyRecord} and the bench module.
 *
 * <p>Writes a {@link Policy} into an {@code IdentifiedDataSerializable} stream and reads it back. Wire form: policy
 * name, composite flag, band count, then per band its name, algorithm configuration name (stable text, never an
 * ordinal), capacity, refill tokens, refill period (ns), limit and window (ns), and for a calendar band (algorithm
 * {@code calendar}, docs/SPEC.md §14) then its calendar's id (text). A reader before calendar bands refuses the
 * algorithm name, so it never decides a calendar band as another algorithm. Reading re-validates every value
 * through the {@link Band} factories, so a corrupt stream fails loudly instead of deciding on bad parameters; the
 * decoded {@link Policy} (immutable) is cached by its exact wire form. That is format 1, inside a format-1
 * {@link io.gridlimit.grid.owner.DecideProcessor}; inside a format-2 one the policy starts with its own format byte
 * (2), then the same fields, so that a reader checks the policy's form where it starts. Thread-safe.
 */
public final class PolicyCodec {
    /** Most decoded policies kept; the cache is emptied when full (policies are few: one per configured rule). */
    private static final int MAX_CACHED = 1024;
    /** Decoded policies by their exact wire form, so that a decision does not re-validate its policy each time. */
    private static final ConcurrentHashMap<PolicyWire, Policy> DECODED = new ConcurrentHashMap<>();

    private PolicyCodec() {
    }

    /**
     * Writes a policy.
     *
     * @param out the stream
     * @param policy the policy
     * @param format the wire format of the enclosing processor: {@link WireFormat#UNVERSIONED} writes no format
     *     byte, a later one writes it as the policy's own format byte
     * @throws IOException from the stream
     */
    public static void write(ObjectDataOutput out, Policy policy, byte format) throws IOException {
        if (format != WireFormat.UNVERSIONED) {
            out.writeByte(format);
        }
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
            if (b.calendar() != null) {
                out.writeString(b.calendar().id());
            }
        }
    }

    /**
     * Writes a policy followed by its bands' maximum debts (docs/SPEC.md §10): {@link #write}, then the band count
     * (int) and each band's {@link Band#maxDebt()} (long), in declared order. For the wire forms that must keep the
     * whole policy (a settle, a catalog record); a decision does not read the debts and does not carry them.
     *
     * @param out the stream
     * @param policy the policy
     * @param format the wire format of the enclosing object, as for {@link #write}
     * @throws IOException from the stream
     */
    public static void writeWithDebts(ObjectDataOutput out, Policy policy, byte format) throws IOException {
        write(out, policy, format);
        out.writeInt(policy.bands().size());
        for (Band b : policy.bands()) {
            out.writeLong(b.maxDebt());
        }
    }

    /**
     * Reads what {@link #writeWithDebts} wrote.
     *
     * @param in the stream
     * @param format the wire format of the enclosing object, as for {@link #read}
     * @return the validated policy with its bands' maximum debts
     * @throws IOException if the stream is corrupt, the debt count differs from the band count, or a debt is out of
     *     its range
     */
    public static Policy readWithDebts(ObjectDataInput in, byte format) throws IOException {
        Policy read = read(in, format);
        int n = in.readInt();
        if (n != read.bands().size()) {
            throw new IOException("maximum debts for " + n + " bands, the policy has " + read.bands().size());
        }
        Policy.Builder builder = Policy.builder(read.name());
        try {
            for (int i = 0; i < n; i++) {
                Band band = read.bands().get(i).withMaxDebt(in.readLong());
                if (read.isComposite()) {
                    builder.band(band);
                } else {
                    builder.single(band);
                }
            }
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new IOException("policy '" + read.name() + "': " + e.getMessage());
        }
    }

    /**
     * Reads a policy.
     *
     * @param in the stream
     * @param format the wire format of the enclosing processor: {@link WireFormat#UNVERSIONED} reads no format
     *     byte, a later one reads the policy's own
     * @return the validated policy (possibly a cached instance)
     * @throws IOException if the stream is corrupt, of an unreadable format, or the policy is invalid
     */
    public static Policy read(ObjectDataInput in, byte format) throws IOException {
        if (format != WireFormat.UNVERSIONED) {
            WireFormat.readVersion(in, "Policy");
        }
        String name = in.readString();
        boolean composite = in.readBoolean();
        int count = in.readInt();
        if (count < 1 || count > Policy.Builder.MAX_BANDS || (!composite && count != 1)) {
            throw new IOException("policy '" + name + "': band count out of range: " + count);
        }
        BandWire[] bands = new BandWire[count];
        for (int i = 0; i < count; i++) {
            String bandName = in.readString();
            String algorithm = in.readString();
            bands[i] = new BandWire(bandName, algorithm, in.readLong(), in.readLong(), in.readLong(), in.readLong(),
                    in.readLong(), Algorithm.CALENDAR.configName().equals(algorithm) ? in.readString() : null);
        }
        PolicyWire wire = new PolicyWire(name, composite, List.of(bands));
        Policy cached = DECODED.get(wire);
        if (cached != null) {
            return cached;
        }
        Policy decoded = decode(wire);
        if (DECODED.size() >= MAX_CACHED) {
            DECODED.clear();
        }
        DECODED.put(wire, decoded);
        return decoded;
    }

    private static Policy decode(PolicyWire wire) throws IOException {
        try {
            Policy.Builder builder = Policy.builder(wire.name());
            for (BandWire b : wire.bands()) {
                Band band = b.toBand();
                if (wire.composite()) {
                    builder.band(band);
                } else {
                    builder.single(band);
                }
            }
            return builder.build();
        } catch (IllegalArgumentException | IllegalStateException | NullPointerException e) {
            throw new IOException("policy '" + wire.name() + "' cannot be read: " + e.getMessage(), e);
        }
    }

    /** A policy as read from the wire, before validation: the key of the decoded-policy cache. */
    private record PolicyWire(String name, boolean composite, List<BandWire> bands) {
    }

    /** A band as read from the wire, before validation; {@code calendar} the id of a calendar band's calendar. */
    private record BandWire(String name, String algorithm, long capacity, long refillTokens,
                            long refillPeriodNanos, long limit, long windowNanos, String calendar) {
        Band toBand() {
            return Band.of(name, Algorithm.fromConfigName(algorithm), capacity, refillTokens,
                    Duration.ofNanos(refillPeriodNanos), limit, Duration.ofNanos(windowNanos),
                    calendar == null ? null : CalendarPeriods.parse(calendar));
        }
    }
}
