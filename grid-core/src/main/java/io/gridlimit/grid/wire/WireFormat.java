package io.gridlimit.grid.wire;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.config.ListenerConfig;
import com.hazelcast.logging.ILogger;
import com.hazelcast.logging.Logger;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import java.io.IOException;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Internal to grid-core: not API; public for every grid-core package, whose wire forms it versions, and the bench
 * module.
 *
 * <p>The format versions of GridLimit's wire forms and the rule of a rolling upgrade (grid-core/docs/wire.md).
 *
 * <ul>
 *   <li>Format {@link #UNVERSIONED} (1) is the form before versioning: class ids 1 to 3, no version byte.</li>
 *   <li>Format {@link #CURRENT} (2) and later are written under the versioned class ids 5 to 7
 *   ({@link SerializationIds}); their stream starts with the format byte. A class id never changes meaning, so a
 *   reader knows from the id alone whether a format byte follows.</li>
 *   <li>Readers accept {@link #CURRENT} and {@link #PREVIOUS}; anything else fails with one log line per type
 *   and format a minute ({@link #refuse}) and an {@link IOException} naming the format found and the ones read.</li>
 *   <li>Every member advertises the newest format it reads in the member attribute {@link #MEMBER_ATTRIBUTE}
 *   ({@link #advertise(Config)}). A writer writes the lowest format every member of its cluster advertises (a
 *   member without the attribute reads only format 1), capped at {@link #CURRENT}: {@link #writeFormat()}, one
 *   volatile read. So during a rolling upgrade every member and client writes format 1 until the last old
 *   member has left, then switches.</li>
 *   <li>A {@code DecisionResult} answers in the format of the request it answers (its caller wrote that format,
 *   so reads it), which keeps an old client served by new members.</li>
 * </ul>
 *
 * <p>The write format is one per JVM: the lowest view of every running member and client configured through
 * {@link io.gridlimit.grid.GridLimitHazelcast} in it ({@link WireFormatListener}); a JVM with none writes format 1.
 * Thread-safe.
 */
public final class WireFormat {
    /** The member attribute holding the newest format a member reads, as a decimal string. */
    static final String MEMBER_ATTRIBUTE = "gridlimit.wire";
    /**
     * The member attribute saying a member reads the reservation types (class ids 20 to 23,
     * {@code gridlimit.ReservedState}; docs/SPEC.md §10): {@value #RESERVATIONS_VERSION}. A member without it is of a
     * GridLimit before them.
     */
    public static final String RESERVATIONS_ATTRIBUTE = "gridlimit.reservations";
    /** The value of {@link #RESERVATIONS_ATTRIBUTE}. */
    static final String RESERVATIONS_VERSION = "1";
    /**
     * The member attribute saying a member reads and keeps leases (class ids 24 and 25, the lease fields of
     * {@code gridlimit.ReservedState}; docs/SPEC.md §13): {@value #LEASES_VERSION}. A member without it would drop a
     * state's open leases when it rewrites the state, so no lease is taken while one is in the cluster.
     */
    public static final String LEASES_ATTRIBUTE = "gridlimit.leases";
    /** The value of {@link #LEASES_ATTRIBUTE}. */
    static final String LEASES_VERSION = "1";
    /** The form before versioning: class ids 1 to 3, no format byte. */
    public static final byte UNVERSIONED = 1;
    /** The format written once every member advertises it. */
    public static final byte CURRENT = 2;
    /** The oldest format read and written here: the one before {@link #CURRENT}. */
    static final byte PREVIOUS = UNVERSIONED;
    /** Least time between two log lines for one refused type and format. */
    static final long REFUSAL_LOG_INTERVAL_NANOS = 60_000_000_000L;

    private static final ILogger LOG = Logger.getLogger(WireFormat.class);
    private static final ConcurrentHashMap<String, Long> LAST_LOGGED_NANOS = new ConcurrentHashMap<>();
    /** The clock of the refusal log's rate limit only (never of a decision): the system's UTC clock. */
    private static final io.gridlimit.time.TimeSource LOG_CLOCK = io.gridlimit.time.SystemTimeSource.systemUtc();
    private static volatile byte writeFormat = PREVIOUS;
    private static volatile boolean reservations;
    private static volatile boolean leases;

    private WireFormat() {
    }

    /** @return the format to write now, in [{@link #PREVIOUS}, {@link #CURRENT}]; a volatile read */
    public static byte writeFormat() {
        return writeFormat;
    }

    /**
     * Whether reservations may be sent (docs/SPEC.md §10): every member of every running GridLimit instance of this
     * JVM advertises {@link #RESERVATIONS_ATTRIBUTE}. During a rolling upgrade from a GridLimit before them,
     * decisions are taken without reservations until the last old member has left. A volatile read.
     *
     * @return true when every member reads the reservation types
     */
    public static boolean reservations() {
        return reservations;
    }

    /**
     * Whether leases may be taken (docs/SPEC.md §13): every member of every running GridLimit instance of this JVM
     * advertises {@link #LEASES_ATTRIBUTE} (and reads reservations). A volatile read.
     *
     * @return true when every member keeps leases
     */
    public static boolean leases() {
        return leases;
    }

    /** Sets {@link #leases()} ({@link WireFormatListener} after a membership change). */
    static void setLeases(boolean everywhere) {
        leases = everywhere;
    }

    /**
     * @param members the members of a cluster
     * @return true when every one advertises {@link #LEASES_ATTRIBUTE} (false for none)
     */
    static boolean allReadLeases(Collection<Member> members) {
        return !members.isEmpty()
                && members.stream().allMatch(m -> LEASES_VERSION.equals(m.getAttribute(LEASES_ATTRIBUTE)));
    }

    /** Sets {@link #reservations()} ({@link WireFormatListener} after a membership change). */
    static void setReservations(boolean everywhere) {
        reservations = everywhere;
    }

    /**
     * @param members the members of a cluster
     * @return true when every one advertises {@link #RESERVATIONS_ATTRIBUTE} (false for none)
     */
    static boolean allReadReservations(Collection<Member> members) {
        return !members.isEmpty()
                && members.stream().allMatch(m -> RESERVATIONS_VERSION.equals(m.getAttribute(RESERVATIONS_ATTRIBUTE)));
    }

    /** Sets the JVM's write format ({@link WireFormatListener} after a membership change). */
    static void setWriteFormat(byte format) {
        writeFormat = (byte) Math.max(PREVIOUS, Math.min(CURRENT, format));
    }

    /**
     * The format the catalog's types (policy records, catalog updates and their results) are written in: the
     * cluster's, never the unversioned form (docs/wire.md).
     *
     * @return {@link #writeFormat()}, at least {@link #CURRENT}
     */
    public static byte catalogFormat() {
        return (byte) Math.max(CURRENT, writeFormat());
    }

    /**
     * Sets the member attribute and registers the listener that keeps {@link #writeFormat()} up to date.
     *
     * @param config a member configuration, changed in place
     */
    public static void advertise(Config config) {
        config.getMemberAttributeConfig().setAttribute(MEMBER_ATTRIBUTE, Byte.toString(CURRENT));
        config.getMemberAttributeConfig().setAttribute(RESERVATIONS_ATTRIBUTE, RESERVATIONS_VERSION);
        config.getMemberAttributeConfig().setAttribute(LEASES_ATTRIBUTE, LEASES_VERSION);
        track(config.getListenerConfigs());
    }

    /**
     * Registers on a client the listener that keeps {@link #writeFormat()} up to date (a client has no attribute:
     * members never send it a request).
     *
     * @param config a client configuration, changed in place
     */
    public static void advertise(ClientConfig config) {
        track(config.getListenerConfigs());
    }

    private static void track(Collection<ListenerConfig> listeners) {
        String name = WireFormatListener.class.getName();
        if (listeners.stream().noneMatch(l -> name.equals(l.getClassName()))) {
            listeners.add(new ListenerConfig(name)); // by class name: one listener per instance started
        }
    }

    /**
     * The lowest format the members advertise (a member without the attribute, or with an unreadable one, reads
     * only {@link #UNVERSIONED}).
     *
     * @param members the members of a cluster
     * @return the lowest advertised format, {@link #UNVERSIONED} for an empty list; not capped
     */
    static int lowestAdvertised(Collection<Member> members) {
        if (members.isEmpty()) {
            return UNVERSIONED;
        }
        int lowest = Integer.MAX_VALUE;
        for (Member m : members) {
            lowest = Math.min(lowest, parse(m.getAttribute(MEMBER_ATTRIBUTE)));
        }
        return lowest;
    }

    private static int parse(String attribute) {
        if (attribute == null || attribute.isEmpty() || attribute.length() > 3) {
            return UNVERSIONED;
        }
        try {
            return Math.max(UNVERSIONED, Integer.parseInt(attribute));
        } catch (NumberFormatException e) {
            return UNVERSIONED;
        }
    }

    /**
     * Writes the format byte of a versioned form; nothing for {@link #UNVERSIONED}.
     *
     * @param out the stream
     * @param format the format being written
     * @throws IOException from the stream
     */
    public static void writeVersion(ObjectDataOutput out, byte format) throws IOException {
        if (format != UNVERSIONED) {
            out.writeByte(format);
        }
    }

    /**
     * Reads the format byte of a versioned form and checks it is read here.
     *
     * @param in the stream, at the start of a versioned form
     * @param type the type being read, for the message
     * @return the format, {@link #CURRENT} or {@link #PREVIOUS}
     * @throws IOException if the format is neither (after one log line, see {@link #refuse})
     */
    public static byte readVersion(ObjectDataInput in, String type) throws IOException {
        byte format = in.readByte();
        return check(format, type);
    }

    /**
     * Checks a format found in a stream (or the {@link #UNVERSIONED} of an unversioned class id).
     *
     * @param format the format found
     * @param type the type being read, for the message
     * @return {@code format}
     * @throws IOException if it is neither {@link #CURRENT} nor {@link #PREVIOUS}
     */
    public static byte check(int format, String type) throws IOException {
        if (format == CURRENT || format == PREVIOUS) {
            return (byte) format;
        }
        throw refuse(type, "format " + format);
    }

    /**
     * The failure of a stream this GridLimit cannot read: logged once a minute per type and format (a warning
     * naming what was found and what is read here), returned as an exception without a stack trace of its own.
     *
     * @param type the type being read
     * @param found what was found, e.g. {@code "format 3"} or {@code "class id 9"}
     * @return the exception to throw
     */
    public static IOException refuse(String type, String found) {
        String message = "GridLimit cannot read a " + type + " of wire " + found + ": this member reads formats "
                + PREVIOUS + " and " + CURRENT + ". It was written by a GridLimit more than one version apart (or is"
                + " corrupt); upgrade one version at a time (grid-core/docs/wire.md)";
        if (shouldLog(type + '/' + found, LOG_CLOCK.nowNanos())) {
            LOG.warning(message);
        }
        return new UnreadableWireException(message);
    }

    /**
     * The rate limit of {@link #refuse}'s log line.
     *
     * @param key the type and format refused
     * @param nowNanos a reading of {@link #LOG_CLOCK}, epoch nanoseconds (a clock stepped back only delays a line)
     * @return true when no line for {@code key} was logged in the last {@link #REFUSAL_LOG_INTERVAL_NANOS}
     */
    static boolean shouldLog(String key, long nowNanos) {
        boolean[] log = {false};
        LAST_LOGGED_NANOS.compute(key, (k, last) -> {
            if (last == null || nowNanos - last >= REFUSAL_LOG_INTERVAL_NANOS) {
                log[0] = true;
                return nowNanos;
            }
            return last;
        });
        return log[0];
    }

    /** A stream this GridLimit cannot read; no stack trace (the message says all, and Hazelcast adds its own). */
    static final class UnreadableWireException extends IOException {
        private static final long serialVersionUID = 1L;

        UnreadableWireException(String message) {
            super(message);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }
}
