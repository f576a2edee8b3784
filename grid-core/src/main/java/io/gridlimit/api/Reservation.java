package io.gridlimit.api;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * A handle on cost that an admitted decision took and that can still be settled (docs/SPEC.md §10): what the
 * owner of the key reserved, signed by it.
 *
 * <p>A reservation names its policy and key (so a settle can be routed to the owner), the key state it was taken
 * from ({@link #stateId()}), its id within that state, the owner's reading when it was taken
 * ({@link #reservedAtNanos()}, epoch nanoseconds), when it stops being settleable ({@link #expiresAtNanos()}), the
 * cost taken ({@link #cost()}, the same in every band) and, per band, the band's name, algorithm and period,
 * window or calendar, so that a settle never touches a band that was replaced since. The {@link #mac()} is an HMAC-SHA256
 * (first 16 bytes) over all of that, keyed with a random secret that the key's state holds on the owner and its
 * backups (docs/SPEC.md §10): only the owner can make or check one, and a reservation from a state that was lost
 * or has expired is unknown there.
 *
 * <p>{@link #token()} is its transport form (URL-safe base64 without padding, at most about 1.6 kB: the key is in
 * it); {@link #parse(String)} reads one back. Immutable and thread-safe.
 */
public final class Reservation {
    /** Length of the MAC, in bytes. */
    public static final int MAC_BYTES = 16;
    /** The version byte a token starts with. */
    private static final byte TOKEN_VERSION = 1;
    /** Longest token {@link #parse} accepts, in characters. */
    public static final int MAX_TOKEN_CHARS = 4096;

    private final String policy;
    private final String key;
    private final long stateId;
    private final long id;
    private final long reservedAtNanos;
    private final long expiresAtNanos;
    private final long cost;
    private final List<BandShape> bands;
    private final byte[] mac;

    /**
     * The identity of one band as a reservation records it: a settle changes a band only while the policy still
     * has a band of this name, algorithm and period, window or calendar (SPEC §4: another shape starts fresh).
     *
     * @param name the band name
     * @param algorithm the band's algorithm
     * @param periodNanos the refill period (buckets) or window (window algorithms), in nanoseconds; 0 for a
     *     calendar band
     * @param calendar a calendar band's {@link io.gridlimit.calendar.CalendarPeriods#id()}, else null
     */
    public record BandShape(String name, Algorithm algorithm, long periodNanos, String calendar) {
        /**
         * @throws NullPointerException if {@code name} or {@code algorithm} is null, or {@code calendar} is null
         *     for a calendar band
         * @throws IllegalArgumentException if {@code calendar} is given for another algorithm
         */
        public BandShape {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(algorithm, "algorithm");
            if (algorithm == Algorithm.CALENDAR) {
                Objects.requireNonNull(calendar, "calendar");
            } else if (calendar != null) {
                throw new IllegalArgumentException("calendar is for a calendar band only, got " + algorithm);
            }
        }

        /**
         * The shape of a band that is not a calendar band.
         *
         * @param name the band name
         * @param algorithm the band's algorithm, not {@link Algorithm#CALENDAR}
         * @param periodNanos the refill period or window, in nanoseconds
         * @throws NullPointerException if {@code name} or {@code algorithm} is null, or it is a calendar band's
         */
        public BandShape(String name, Algorithm algorithm, long periodNanos) {
            this(name, algorithm, periodNanos, null);
        }

        /**
         * The shape of a band.
         *
         * @param band a band
         * @return its name, algorithm and period, window or calendar
         */
        public static BandShape of(Band band) {
            return switch (band.algorithm()) {
                case TOKEN_BUCKET, GCRA -> new BandShape(band.name(), band.algorithm(), band.refillPeriodNanos());
                case FIXED_WINDOW, SLIDING_WINDOW_LOG, SLIDING_WINDOW_COUNTER ->
                        new BandShape(band.name(), band.algorithm(), band.windowNanos());
                case CALENDAR -> new BandShape(band.name(), band.algorithm(), 0, band.calendar().id());
            };
        }

        /**
         * @param band a band
         * @return true when {@code band} has this name, algorithm and period or window
         */
        public boolean matches(Band band) {
            return equals(of(band));
        }
    }

    /**
     * Creates a reservation; the owner's algorithms do, then sign it ({@link #signedContent()}, {@link #withMac}).
     *
     * @param policy the policy name
     * @param key the key
     * @param stateId the id of the key state it was taken from
     * @param id its id in that state, >= 1
     * @param reservedAtNanos the owner's reading when it was taken, epoch nanoseconds
     * @param expiresAtNanos when it stops being settleable, epoch nanoseconds, >= {@code reservedAtNanos}
     * @param cost the cost taken in every band, in [1, 10^15]
     * @param bands the bands it was taken from, 1 to 16, in policy order
     * @param mac the signature, {@link #MAC_BYTES} bytes, or an empty array while unsigned
     * @throws IllegalArgumentException if a value is out of its range
     * @throws NullPointerException if an argument is null
     */
    public Reservation(String policy, String key, long stateId, long id, long reservedAtNanos, long expiresAtNanos,
                       long cost, List<BandShape> bands, byte[] mac) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.key = Objects.requireNonNull(key, "key");
        if (id < 1) {
            throw new IllegalArgumentException("id must be >= 1, got " + id);
        }
        if (expiresAtNanos < reservedAtNanos) {
            throw new IllegalArgumentException("expiresAtNanos " + expiresAtNanos + " is before reservedAtNanos "
                    + reservedAtNanos);
        }
        RateLimiter.checkCost(cost);
        this.bands = List.copyOf(bands);
        if (this.bands.isEmpty() || this.bands.size() > Policy.Builder.MAX_BANDS) {
            throw new IllegalArgumentException("bands must hold 1 to " + Policy.Builder.MAX_BANDS + " bands, got "
                    + this.bands.size());
        }
        if (mac.length != 0 && mac.length != MAC_BYTES) {
            throw new IllegalArgumentException("mac must be " + MAC_BYTES + " bytes, got " + mac.length);
        }
        this.stateId = stateId;
        this.id = id;
        this.reservedAtNanos = reservedAtNanos;
        this.expiresAtNanos = expiresAtNanos;
        this.cost = cost;
        this.mac = mac.clone();
    }

    /** @return the policy name, never null */
    public String policy() {
        return policy;
    }

    /** @return the key, never null (may be personal data: never log it) */
    public String key() {
        return key;
    }

    /** @return the id of the key state the reservation was taken from */
    public long stateId() {
        return stateId;
    }

    /** @return the reservation's id within its state, >= 1 */
    public long id() {
        return id;
    }

    /** @return the owner's reading when the cost was taken, epoch nanoseconds */
    public long reservedAtNanos() {
        return reservedAtNanos;
    }

    /** @return the first owner reading at which the reservation can no longer be settled, epoch nanoseconds */
    public long expiresAtNanos() {
        return expiresAtNanos;
    }

    /** @return the cost taken from every band, in [1, 10^15] */
    public long cost() {
        return cost;
    }

    /** @return the bands the cost was taken from, in policy order; unmodifiable */
    public List<BandShape> bands() {
        return bands;
    }

    /** @return a copy of the MAC: {@link #MAC_BYTES} bytes, or empty while unsigned */
    public byte[] mac() {
        return mac.clone();
    }

    /**
     * Returns this reservation with a signature.
     *
     * @param signature {@link #MAC_BYTES} bytes over {@link #signedContent()}
     * @return a signed copy
     */
    public Reservation withMac(byte[] signature) {
        return new Reservation(policy, key, stateId, id, reservedAtNanos, expiresAtNanos, cost, bands, signature);
    }

    /** @return the bytes the MAC covers: the token's bytes without the MAC */
    public byte[] signedContent() {
        return encode(false);
    }

    /**
     * The transport form.
     *
     * @return URL-safe base64 without padding of the version byte, the fields and the MAC
     * @throws IllegalStateException if the reservation is not signed
     */
    public String token() {
        if (mac.length != MAC_BYTES) {
            throw new IllegalStateException("an unsigned reservation has no token");
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(encode(true));
    }

    /** @return {@link #token()}'s bytes before base64 */
    public byte[] toBytes() {
        return encode(true);
    }

    private byte[] encode(boolean withMac) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + key.length() * 3);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(TOKEN_VERSION);
            writeString(out, policy);
            writeString(out, key);
            out.writeLong(stateId);
            out.writeLong(id);
            out.writeLong(reservedAtNanos);
            out.writeLong(expiresAtNanos);
            out.writeLong(cost);
            out.writeByte(bands.size());
            for (BandShape b : bands) {
                writeString(out, b.name());
                writeString(out, b.algorithm().configName());
                out.writeLong(b.periodNanos());
                if (b.calendar() != null) {
                    writeString(out, b.calendar()); // only after "calendar", which a reader before them refuses
                }
            }
            if (withMac) {
                out.write(mac);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e); // a ByteArrayOutputStream does not fail
        }
        return bytes.toByteArray();
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeShort(b.length);
        out.write(b);
    }

    /**
     * Reads a token.
     *
     * @param token a {@link #token()}
     * @return the reservation, signed as the token says (the owner checks the signature)
     * @throws IllegalArgumentException naming what is wrong: not canonical base64url (padding, or unused bits set),
     *     too long, truncated, another version,
     *     or a field out of range (the message never quotes the token, which holds the key)
     * @throws NullPointerException if {@code token} is null
     */
    public static Reservation parse(String token) {
        Objects.requireNonNull(token, "token");
        if (token.isEmpty() || token.length() > MAX_TOKEN_CHARS) {
            throw new IllegalArgumentException("a reservation token has 1 to " + MAX_TOKEN_CHARS
                    + " characters, got " + token.length());
        }
        byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(token);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a reservation token is URL-safe base64 without padding");
        }
        if (!Base64.getUrlEncoder().withoutPadding().encodeToString(bytes).equals(token)) {
            // padding ("==") or unused low bits set in the last character: one reservation has one token
            throw new IllegalArgumentException("a reservation token is URL-safe base64 without padding");
        }
        return fromBytes(bytes);
    }

    /**
     * Reads {@link #toBytes()}.
     *
     * @param bytes the bytes
     * @return the reservation
     * @throws IllegalArgumentException as {@link #parse(String)}
     */
    public static Reservation fromBytes(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes))) {
            int version = in.readByte();
            if (version != TOKEN_VERSION) {
                throw new IllegalArgumentException("reservation token version " + version + " is not read here"
                        + " (version " + TOKEN_VERSION + " is)");
            }
            String policy = readString(in);
            String key = readString(in);
            long stateId = in.readLong();
            long id = in.readLong();
            long reservedAt = in.readLong();
            long expiresAt = in.readLong();
            long cost = in.readLong();
            int n = in.readUnsignedByte();
            List<BandShape> bands = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                String name = readString(in);
                Algorithm algorithm = Algorithm.fromConfigName(readString(in));
                long periodNanos = in.readLong();
                bands.add(new BandShape(name, algorithm, periodNanos,
                        algorithm == Algorithm.CALENDAR ? readString(in) : null));
            }
            byte[] mac = new byte[MAC_BYTES];
            in.readFully(mac);
            if (in.read() != -1) {
                throw new IllegalArgumentException("a reservation token has bytes after its signature");
            }
            return new Reservation(policy, key, stateId, id, reservedAt, expiresAt, cost, bands, mac);
        } catch (EOFException e) {
            throw new IllegalArgumentException("the reservation token is truncated");
        } catch (IOException e) {
            throw new IllegalArgumentException("the reservation token cannot be read");
        }
    }

    private static String readString(DataInputStream in) throws IOException {
        int n = in.readUnsignedShort();
        if (n > MAX_TOKEN_CHARS) {
            throw new IllegalArgumentException("the reservation token is malformed");
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof Reservation r && stateId == r.stateId && id == r.id
                && reservedAtNanos == r.reservedAtNanos && expiresAtNanos == r.expiresAtNanos && cost == r.cost
                && policy.equals(r.policy) && key.equals(r.key) && bands.equals(r.bands)
                && Arrays.equals(mac, r.mac));
    }

    @Override
    public int hashCode() {
        return Objects.hash(policy, key, stateId, id, reservedAtNanos, cost);
    }

    /** @return a description without the key (personal data) or the MAC */
    @Override
    public String toString() {
        return "Reservation{" + policy + " id=" + id + " cost=" + cost + " reservedAtNanos=" + reservedAtNanos
                + " expiresAtNanos=" + expiresAtNanos + "}";
    }
}
